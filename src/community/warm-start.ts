import { hashText } from "../util/hash.js";
import type { ProjectedGraph } from "./project-graph.js";

/** What a warm-started clustering reads of the previous run. */
export interface PreviousClustering {
  /** The previous hierarchy: every community's level and members. */
  communities: readonly { level: number; entityKeys: readonly string[] }[];
  /** nodeFingerprints of the graph it was clustered from. */
  fingerprints: readonly string[];
}

export interface WarmStart {
  previous: PreviousClustering;
  /**
   * A component keeps its warm-started partition unless its modularity is lower than a fresh
   * clustering's by more than this (community.warmStartTolerance).
   */
  tolerance: number;
}

/** How the splits of a clustering were made (a split: one connected component at one level). */
export interface SplitCounts {
  /** Nothing in the component changed: its previous partition kept outright. */
  kept: number;
  /** Started from the previous partition and moved to convergence. */
  warm: number;
  /** Clustered from scratch: no previous partition covered it, or there was no warm start. */
  fresh: number;
  /** Warm-started, but fresh clustering was better by more than the tolerance, so taken instead. */
  fellBack: number;
}

export function noSplits(): SplitCounts {
  return { kept: 0, warm: 0, fresh: 0, fellBack: 0 };
}

/**
 * One short hash per node over its key and its weighted neighbours: a node whose fingerprint the
 * previous run also had has the same edges as then. Sorted, so it depends on the graph only.
 */
export function nodeFingerprints(graph: ProjectedGraph): Map<string, string> {
  const fingerprints = new Map<string, string>();
  graph.forEachNode((key) => {
    const links: string[] = [];
    graph.forEachNeighbor(key, (neighbour) => {
      links.push(`${neighbour}\u0000${graph.getEdgeAttribute(key, neighbour, "weight")}`);
    });
    fingerprints.set(key, hashText(`${key}\u0001${links.sort().join("\u0001")}`, 12));
  });
  return fingerprints;
}

/**
 * The previous run's partition as seeds, and which nodes a re-clustering must revisit: a node
 * whose edges changed, that the previous level did not place, or whose neighbours inside the
 * community being split are not the ones it had inside its previous community at that level.
 */
export class WarmSeeds {
  private readonly labels = new Map<number, Map<string, number>>();
  private readonly changed = new Set<string>();

  constructor(
    previous: PreviousClustering,
    private readonly graph: ProjectedGraph,
    current: Map<string, string>,
  ) {
    previous.communities.forEach((community, number) => {
      const level = this.labels.get(community.level) ?? new Map<string, number>();
      this.labels.set(community.level, level);
      for (const key of community.entityKeys) level.set(key, number);
    });
    const known = new Set(previous.fingerprints);
    for (const [key, fingerprint] of current) if (!known.has(fingerprint)) this.changed.add(key);
  }

  /** The previous community of `key` at `level` (a number shared by its members), if any. */
  labelOf(level: number, key: string): number | undefined {
    return this.labels.get(level)?.get(key);
  }

  /** Per member of a component being clustered at `level` (inside `parent` below level 0). */
  affected(members: readonly string[], level: number, parent: ReadonlySet<string> | null): boolean[] {
    return members.map(
      (key) =>
        this.changed.has(key) ||
        this.labelOf(level, key) === undefined ||
        (parent !== null && this.neighboursMoved(key, level - 1, parent)),
    );
  }

  /** Inside `parent` now, inside the previous community of `key` at `parentLevel` then: not the same neighbours. */
  private neighboursMoved(key: string, parentLevel: number, parent: ReadonlySet<string>): boolean {
    const before = this.labelOf(parentLevel, key);
    if (before === undefined) return true;
    let moved = false;
    this.graph.forEachNeighbor(key, (neighbour) => {
      if (parent.has(neighbour) !== (this.labelOf(parentLevel, neighbour) === before)) moved = true;
    });
    return moved;
  }
}
