import type { GraphStore, GraphView } from "../storage/graph-store.js";

/**
 * The graph as the steps after merging read it (embedding, communities, reports): read once per
 * run and handed from step to step, instead of each step listing every record again.
 */
export async function loadGraphView(store: GraphStore): Promise<GraphView> {
  if (store.listGraph) return store.listGraph();
  const [entities, relationships] = await Promise.all([store.listEntities(), store.listRelationships()]);
  return { entities, relationships };
}
