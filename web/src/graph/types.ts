/** The plain graph data the views hand to the canvas (no graphology types, so views stay in the first chunk). */
export interface GraphNodeData {
  id: string;
  name: string;
  type: string;
  degree: number;
  community?: string | number | null;
}

export interface GraphEdgeData {
  id: string;
  source: string;
  target: string;
  weight: number;
  description?: string;
}

export type ColourBy = "community" | "type";

export function categoryOf(node: GraphNodeData, colourBy: ColourBy): string {
  if (colourBy === "type") return node.type || "unknown";
  return node.community === undefined || node.community === null ? "none" : String(node.community);
}
