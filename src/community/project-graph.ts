import { createRequire } from "node:module";
import type { UndirectedGraph } from "graphology";
import { MAX_STRENGTH } from "../merge/strength.js";
import type { EntityRecord, RelationshipRecord } from "../types.js";
import { loadLouvain } from "./louvain.js";

export interface ProjectedEdgeAttributes {
  weight: number;
}

export type ProjectedGraph = UndirectedGraph<Record<string, never>, ProjectedEdgeAttributes>;

const require = createRequire(import.meta.url);
let graphClass: typeof UndirectedGraph | undefined;

/**
 * graphology (178 kB) loads on the first clustering, not with the index command: an index run
 * loads it while the model extracts (loadClusteringLibraries).
 */
function graphology(): typeof UndirectedGraph {
  graphClass ??= (require("graphology") as { UndirectedGraph: typeof UndirectedGraph }).UndirectedGraph;
  return graphClass;
}

function emptyGraph(): ProjectedGraph {
  return new (graphology())({ allowSelfLoops: false });
}

/** Loads the libraries clustering needs now, so the first clustering does not wait for them. */
export function loadClusteringLibraries(): void {
  graphology();
  loadLouvain();
}

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Projects entities and relationships into an undirected weighted graph for clustering. Nodes and
 * edges are inserted in sorted key order because Louvain's result depends on insertion order, and it
 * must depend on the graph only, never on the order the store returned rows in.
 */
export function projectGraph(
  entities: readonly Pick<EntityRecord, "key">[],
  relationships: readonly Pick<RelationshipRecord, "sourceKey" | "targetKey" | "weight">[],
): ProjectedGraph {
  const nodeKeys = [...new Set(entities.map((e) => e.key))].sort(byText);
  const known = new Set(nodeKeys);
  const weights = new Map<string, { source: string; target: string; weight: number }>();
  for (const rel of relationships) {
    // Self-loops add nothing to a partition; dangling edges point at entities the store lacks.
    if (rel.sourceKey === rel.targetKey || !known.has(rel.sourceKey) || !known.has(rel.targetKey)) continue;
    const [source, target] =
      rel.sourceKey < rel.targetKey ? [rel.sourceKey, rel.targetKey] : [rel.targetKey, rel.sourceKey];
    const pairKey = `${source}\u0000${target}`;
    const entry = weights.get(pairKey) ?? { source, target, weight: 0 };
    entry.weight = Math.min(entry.weight + positiveWeight(rel.weight), MAX_EDGE_WEIGHT);
    weights.set(pairKey, entry);
  }
  const graph: ProjectedGraph = emptyGraph();
  for (const key of nodeKeys) graph.addNode(key);
  const pairs = [...weights.entries()].sort(([a], [b]) => byText(a, b));
  for (const [, { source, target, weight }] of pairs) graph.addEdge(source, target, { weight });
  return graph;
}

/**
 * The heaviest edge clustering takes: a relationship's weight is the sum of its mentions' strengths
 * (at most MAX_STRENGTH each, one mention per passage), so this is a relationship stated strongly
 * in 100,000 passages. Strengths are validated where they enter; this guards Louvain against a
 * weight stored before they were (1e308 made its sums overflow to Infinity and put most of the
 * graph in one community).
 */
const MAX_EDGE_WEIGHT = MAX_STRENGTH * 100_000;

/** A non-positive or non-finite weight is bad data (it still counts as a link); a huge one is capped. */
function positiveWeight(weight: number): number {
  return Number.isFinite(weight) && weight > 0 ? Math.min(weight, MAX_EDGE_WEIGHT) : 1;
}

/** The subgraph induced by `members`, again in sorted order so re-clustering it is order-free. */
export function inducedSubgraph(graph: ProjectedGraph, members: readonly string[]): ProjectedGraph {
  const sorted = [...members].sort(byText);
  const inside = new Set(sorted);
  const sub: ProjectedGraph = emptyGraph();
  for (const key of sorted) sub.addNode(key);
  for (const key of sorted) {
    graph.forEachNeighbor(key, (neighbor) => {
      if (key < neighbor && inside.has(neighbor)) {
        sub.addEdge(key, neighbor, { weight: graph.getEdgeAttribute(key, neighbor, "weight") });
      }
    });
  }
  return sub;
}

/** Connected components, each sorted, listed by their smallest key. */
export function connectedComponents(graph: ProjectedGraph): string[][] {
  const seen = new Set<string>();
  const components: string[][] = [];
  graph.forEachNode((start) => {
    if (seen.has(start)) return;
    seen.add(start);
    const component = [start];
    for (let i = 0; i < component.length; i++) {
      graph.forEachNeighbor(component[i] as string, (neighbor) => {
        if (seen.has(neighbor)) return;
        seen.add(neighbor);
        component.push(neighbor);
      });
    }
    components.push(component.sort(byText));
  });
  return components.sort((a, b) => byText(a[0] as string, b[0] as string));
}

export { byText };
