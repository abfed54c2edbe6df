import type { EdgeOrdinals, GraphEdge } from "../../storage/graph-store.js";
import { OrdinalMarks } from "./ordinal-marks.js";

/**
 * The edges of the lists, each key once where it first appears, with the last list's copy (as a
 * map keyed by edge would keep). Edges the store numbered (GraphEdge.ordinals) are found by their
 * number instead of their text key.
 */
export function uniqueEdges<E extends GraphEdge>(lists: E[][]): E[] {
  if (lists.every((list) => list.every((edge) => edge.ordinals))) return uniqueNumbered(lists);
  const out = new Map<string, E>();
  for (const list of lists) for (const edge of list) out.set(edge.key, edge);
  return [...out.values()];
}

const seenEdges = new OrdinalMarks();

function uniqueNumbered<E extends GraphEdge>(lists: E[][]): E[] {
  seenEdges.startPass();
  const out: E[] = [];
  for (const list of lists) {
    for (const edge of list) {
      const ordinal = (edge.ordinals as EdgeOrdinals).edge;
      const at = seenEdges.get(ordinal);
      if (at >= 0) out[at] = edge;
      else {
        seenEdges.set(ordinal, out.length);
        out.push(edge);
      }
    }
  }
  return out;
}
