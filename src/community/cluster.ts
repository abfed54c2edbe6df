import { hashText } from "../util/hash.js";
import { louvain } from "./louvain.js";
import {
  byText,
  connectedComponents,
  inducedSubgraph,
  type ProjectedGraph,
  projectGraph,
} from "./project-graph.js";
import { deriveSeed, seededRandom } from "./seeded-random.js";

/**
 * What clustering reads: entity keys and weighted edges, no descriptions. Summaries change only
 * descriptions, so a run can cluster this while it summarises.
 */
export interface ClusterGraph {
  entityKeys: string[];
  edges: { sourceKey: string; targetKey: string; weight: number }[];
}

/** The hierarchy of a ClusterGraph (projected in sorted order: the result depends on the graph only). */
export function clusterGraphHierarchy(graph: ClusterGraph, options: ClusterOptions): CommunityNode[] {
  return clusterHierarchy(
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
  hierarchy(graph: ClusterGraph, options: ClusterOptions, signal?: AbortSignal): Promise<CommunityNode[]>;
}

export const inProcessClusterer: Clusterer = {
  hierarchy: async (graph, options) => clusterGraphHierarchy(graph, options),
};

export interface ClusterOptions {
  /** Communities larger than this are split again at the next level. */
  maxClusterSize: number;
  seed: number;
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

/**
 * Hierarchical communities, built top-down: level 0 is Louvain on the whole graph, and every
 * community larger than maxClusterSize is clustered again on its own subgraph into the next level.
 * (Louvain's dendrogram runs fine-to-coarse, the wrong direction for a size cap.)
 *
 * Stop rule: when re-clustering returns a single community, it stays a leaf marked `unsplittable`.
 * Entities without any relationship join no community: there is nothing to report about them.
 * `graph` is built in sorted order, as projectGraph builds it.
 */
export function clusterHierarchy(graph: ProjectedGraph, options: ClusterOptions): CommunityNode[] {
  const ids = new CommunityIds();
  const nodes: CommunityNode[] = [];
  const pending = partition(graph, options.seed, false).map((members) => makeNode(ids, members, 0, null));
  while (pending.length > 0) {
    const node = pending.shift() as CommunityNode;
    nodes.push(node);
    if (node.entityKeys.length <= options.maxClusterSize) continue;
    const groups = partition(inducedSubgraph(graph, node.entityKeys), options.seed, true);
    if (groups.length < 2) {
      node.unsplittable = true;
      continue;
    }
    const children = groups.map((members) => makeNode(ids, members, node.level + 1, node.id));
    node.childIds = sortNodes(children).map((child) => child.id);
    pending.push(...children);
  }
  return sortNodes(nodes);
}

/**
 * Splits a graph into groups: Louvain on each connected component separately, so a component's
 * clustering never depends on unrelated parts of the graph (new documents elsewhere keep ids stable).
 * Isolated nodes become singleton groups only when `keepIsolated` (inside a split, every member of
 * the parent must land in some child).
 */
function partition(graph: ProjectedGraph, seed: number, keepIsolated: boolean): string[][] {
  const groups: string[][] = [];
  const components = connectedComponents(graph);
  for (const component of components) {
    if (component.length === 1) {
      if (keepIsolated) groups.push(component);
      continue;
    }
    // A graph built in sorted order (projectGraph, inducedSubgraph) that is all one component is
    // its own induced subgraph, node for node and neighbour for neighbour: no need to build it again.
    const subgraph = components.length === 1 ? graph : inducedSubgraph(graph, component);
    groups.push(...louvainGroups(subgraph, seed, component));
  }
  return groups;
}

function louvainGroups(component: ProjectedGraph, seed: number, members: string[]): string[][] {
  const rng = seededRandom(deriveSeed(seed, members.join("\n")));
  const assignment = louvain(component, { getEdgeWeight: "weight", rng });
  const byCommunity = new Map<number, string[]>();
  for (const key of members) {
    const community = assignment[key] as number;
    const group = byCommunity.get(community) ?? [];
    group.push(key);
    byCommunity.set(community, group);
  }
  return [...byCommunity.values()];
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
