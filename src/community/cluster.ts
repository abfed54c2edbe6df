import { hashText } from "../util/hash.js";
import { connectedParts, indexedGraph, modularity, seededLouvain } from "./local-moving.js";
import { louvain } from "./louvain.js";
import {
  byText,
  connectedComponents,
  inducedSubgraph,
  type ProjectedGraph,
  projectGraph,
} from "./project-graph.js";
import { deriveSeed, seededRandom } from "./seeded-random.js";
import { nodeFingerprints, noSplits, type SplitCounts, WarmSeeds, type WarmStart } from "./warm-start.js";

/**
 * What clustering reads: entity keys and weighted edges, no descriptions. Summaries change only
 * descriptions, so a run can cluster this while it summarises.
 */
export interface ClusterGraph {
  entityKeys: string[];
  edges: { sourceKey: string; targetKey: string; weight: number }[];
}

/** The clustering of a ClusterGraph (projected in sorted order: the result depends on the graph and options only). */
export function clusterGraphHierarchy(graph: ClusterGraph, options: ClusterOptions): Clustering {
  return clusterGraph(
    projectGraph(
      graph.entityKeys.map((key) => ({ key })),
      graph.edges,
    ),
    options,
  );
}

/** Builds the community hierarchy: in-process, or on the built-ins' thread (ThreadedClusterer). */
export interface Clusterer {
  /** A run's stop (`signal`) drops clustering still queued or running on the thread. */
  hierarchy(graph: ClusterGraph, options: ClusterOptions, signal?: AbortSignal): Promise<Clustering>;
}

export const inProcessClusterer: Clusterer = {
  hierarchy: async (graph, options) => clusterGraphHierarchy(graph, options),
};

export interface ClusterOptions {
  /** Communities larger than this are split again at the next level. */
  maxClusterSize: number;
  seed: number;
  /** Start from the previous run's hierarchy (see clusterGraph); absent, every split is fresh. */
  warmStart?: WarmStart;
}

export interface CommunityNode {
  /**
   * `c<level>-<hash of sorted member keys>`: an unchanged community keeps its id across runs. A
   * re-clustering may then carry over a previous run's ids (community/id-continuity.ts).
   */
  id: string;
  level: number;
  parentId: string | null;
  childIds: string[];
  /** Sorted entity keys. */
  entityKeys: string[];
  /** Larger than maxClusterSize, but Louvain found no split of it (e.g. a dense clique). */
  unsplittable: boolean;
}

export interface Clustering {
  nodes: CommunityNode[];
  /** nodeFingerprints of the clustered graph: the next run's warm start tells changed nodes by them. */
  fingerprints: string[];
  splits: SplitCounts;
}

/** The hierarchy alone (estimates and benches cluster from scratch with it). */
export function clusterHierarchy(graph: ProjectedGraph, options: ClusterOptions): CommunityNode[] {
  return clusterGraph(graph, options).nodes;
}

/**
 * Hierarchical communities, built top-down: level 0 is Louvain on the whole graph, and every
 * community larger than maxClusterSize is clustered again on its own subgraph into the next level.
 * (Louvain's dendrogram runs fine-to-coarse, the wrong direction for a size cap.)
 *
 * With a warm start, each split (a connected component at a level) starts from the previous
 * run's partition at that level instead (see Splitter), so that a changed document moves the
 * communities around it and leaves the others, and their reports, alone.
 *
 * Stop rule: when re-clustering returns a single community, it stays a leaf marked `unsplittable`.
 * Entities without any relationship join no community: there is nothing to report about them.
 * `graph` is built in sorted order, as projectGraph builds it.
 */
export function clusterGraph(graph: ProjectedGraph, options: ClusterOptions): Clustering {
  const fingerprints = nodeFingerprints(graph);
  const splitter = new Splitter(graph, options, fingerprints);
  const ids = new CommunityIds();
  const nodes: CommunityNode[] = [];
  const pending = splitter.partition(graph, 0, null).map((members) => makeNode(ids, members, 0, null));
  while (pending.length > 0) {
    const node = pending.shift() as CommunityNode;
    nodes.push(node);
    if (node.entityKeys.length <= options.maxClusterSize) continue;
    const groups = splitter.partition(
      inducedSubgraph(graph, node.entityKeys),
      node.level + 1,
      new Set(node.entityKeys),
    );
    if (groups.length < 2) {
      node.unsplittable = true;
      continue;
    }
    const children = groups.map((members) => makeNode(ids, members, node.level + 1, node.id));
    node.childIds = sortNodes(children).map((child) => child.id);
    pending.push(...children);
  }
  return {
    nodes: sortNodes(nodes),
    fingerprints: [...fingerprints.values()].sort(byText),
    splits: splitter.splits,
  };
}

/**
 * Splits a graph into groups: each connected component separately, so a component's clustering
 * never depends on unrelated parts of the graph (new documents elsewhere keep ids stable).
 * Isolated nodes become singleton groups only inside a split (`parent` given: every member of the
 * parent must land in some child).
 *
 * Fresh, a component is clustered by Louvain. Warm-started, a component none of whose nodes
 * changed keeps its previous partition outright; another starts from it (new nodes as their own
 * communities) and runs seeded Louvain, unless fresh Louvain beats that by more than the tolerance.
 */
class Splitter {
  readonly splits = noSplits();
  private readonly seeds: WarmSeeds | undefined;

  constructor(
    graph: ProjectedGraph,
    private readonly options: ClusterOptions,
    fingerprints: Map<string, string>,
  ) {
    const warm = options.warmStart;
    this.seeds = warm ? new WarmSeeds(warm.previous, graph, fingerprints) : undefined;
  }

  partition(graph: ProjectedGraph, level: number, parent: ReadonlySet<string> | null): string[][] {
    const groups: string[][] = [];
    const components = connectedComponents(graph);
    for (const component of components) {
      if (component.length === 1) {
        if (parent) groups.push(component);
        continue;
      }
      // A graph built in sorted order (projectGraph, inducedSubgraph) that is all one component is
      // its own induced subgraph, node for node and neighbour for neighbour: no need to build it again.
      const subgraph = components.length === 1 ? graph : inducedSubgraph(graph, component);
      groups.push(...this.component(subgraph, component, level, parent));
    }
    return groups;
  }

  private component(
    graph: ProjectedGraph,
    members: string[],
    level: number,
    parent: ReadonlySet<string> | null,
  ): string[][] {
    const seeds = this.seeds;
    // A member the previous run did not place at this level starts alone (a label of its own).
    const seed = seeds ? members.map((key, i) => seeds.labelOf(level, key) ?? -1 - i) : [];
    if (!seeds || seed.every((label) => label < 0)) {
      this.splits.fresh += 1;
      return louvainGroups(graph, this.options.seed, members);
    }
    const indexed = indexedGraph(graph, members);
    const active = seeds.affected(members, level, parent);
    if (!active.includes(true)) {
      this.splits.kept += 1;
      return groupsOf(members, connectedParts(indexed, seed));
    }
    const warm = connectedParts(indexed, seededLouvain(indexed, seed, active));
    const fresh = louvainGroups(graph, this.options.seed, members);
    const tolerance = this.options.warmStart?.tolerance ?? 0;
    if (modularity(indexed, warm) < modularity(indexed, labelsOf(members, fresh)) - tolerance) {
      this.splits.fellBack += 1;
      return fresh;
    }
    this.splits.warm += 1;
    return groupsOf(members, warm);
  }
}

function louvainGroups(component: ProjectedGraph, seed: number, members: string[]): string[][] {
  const rng = seededRandom(deriveSeed(seed, members.join("\n")));
  const assignment = louvain(component, { getEdgeWeight: "weight", rng });
  return groupsOf(
    members,
    members.map((key) => assignment[key] as number),
  );
}

/** Members grouped by label, groups in the order their first member comes. */
function groupsOf(members: readonly string[], labels: ArrayLike<number>): string[][] {
  const byLabel = new Map<number, string[]>();
  members.forEach((key, i) => {
    const label = labels[i] as number;
    const group = byLabel.get(label);
    if (group) group.push(key);
    else byLabel.set(label, [key]);
  });
  return [...byLabel.values()];
}

/** The group number of every member. */
function labelsOf(members: readonly string[], groups: readonly string[][]): Int32Array {
  const number = new Map<string, number>();
  groups.forEach((group, i) => {
    for (const key of group) number.set(key, i);
  });
  return Int32Array.from(members, (key) => number.get(key) ?? -1);
}

function makeNode(
  ids: CommunityIds,
  members: string[],
  level: number,
  parentId: string | null,
): CommunityNode {
  const entityKeys = [...members].sort(byText);
  return { id: ids.next(level, entityKeys), level, parentId, childIds: [], entityKeys, unsplittable: false };
}

/** By level, then largest first, then id: a stable order for storage, display and tests. */
export function sortNodes(nodes: CommunityNode[]): CommunityNode[] {
  return nodes.sort(
    (a, b) => a.level - b.level || b.entityKeys.length - a.entityKeys.length || byText(a.id, b.id),
  );
}

/** Hash-derived ids; a (practically impossible) hash clash gets a deterministic suffix. */
export class CommunityIds {
  private readonly used = new Set<string>();

  next(level: number, sortedKeys: string[]): string {
    return this.claim(`c${level}-${hashText(sortedKeys.join("\n"), 12)}`);
  }

  /** `wanted` when no id given out so far is it, else `wanted-2`, `wanted-3`, ... */
  claim(wanted: string): string {
    let id = wanted;
    for (let n = 2; this.used.has(id); n++) id = `${wanted}-${n}`;
    this.used.add(id);
    return id;
  }
}
