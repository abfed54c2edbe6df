import type { GraphEdgeData, GraphNodeData } from "./types.js";

type Value = unknown;

function isRecord(value: Value): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function idOf(value: Value): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  if (isRecord(value) && ("low" in value || "high" in value)) return String(value.low ?? value.high);
  return undefined;
}

/** A Neo4j node as the server serialises it: labels plus properties, with an element id or identity. */
function asNode(value: Value): GraphNodeData | undefined {
  if (!isRecord(value) || !Array.isArray(value.labels)) return undefined;
  const properties = isRecord(value.properties) ? value.properties : {};
  const id = idOf(value.elementId) ?? idOf(value.identity) ?? idOf(properties.name);
  if (!id) return undefined;
  const name = String(properties.name ?? properties.title ?? id);
  return { id, name, type: String(value.labels[0] ?? "node"), degree: 1 };
}

function asRelationship(value: Value): GraphEdgeData | undefined {
  if (!isRecord(value) || typeof value.type !== "string") return undefined;
  const source = idOf(value.startNodeElementId) ?? idOf(value.start);
  const target = idOf(value.endNodeElementId) ?? idOf(value.end);
  if (!source || !target) return undefined;
  const id = idOf(value.elementId) ?? idOf(value.identity) ?? `${source}-${value.type}-${target}`;
  return { id, source, target, weight: 1, description: value.type };
}

/** Nodes and relationships found anywhere in Cypher result rows (values, lists and paths). */
export function graphOfRows(rows: Array<Record<string, unknown>>): {
  nodes: GraphNodeData[];
  edges: GraphEdgeData[];
} {
  const nodes = new Map<string, GraphNodeData>();
  const edges = new Map<string, GraphEdgeData>();
  const visit = (value: Value, depth: number): void => {
    if (depth > 4) return;
    const node = asNode(value);
    if (node) {
      nodes.set(node.id, node);
      return;
    }
    const edge = asRelationship(value);
    if (edge) {
      edges.set(edge.id, edge);
      return;
    }
    if (Array.isArray(value)) for (const item of value) visit(item, depth + 1);
    else if (isRecord(value)) for (const item of Object.values(value)) visit(item, depth + 1);
  };
  for (const row of rows) visit(row, 0);
  // Edges whose ends came back only as ids still show, as bare nodes.
  for (const edge of edges.values()) {
    for (const end of [edge.source, edge.target]) {
      if (!nodes.has(end)) nodes.set(end, { id: end, name: end, type: "node", degree: 1 });
    }
  }
  const degree = new Map<string, number>();
  for (const edge of edges.values()) {
    degree.set(edge.source, (degree.get(edge.source) ?? 0) + 1);
    degree.set(edge.target, (degree.get(edge.target) ?? 0) + 1);
  }
  return {
    nodes: [...nodes.values()].map((node) => ({ ...node, degree: degree.get(node.id) ?? 0 })),
    edges: [...edges.values()],
  };
}
