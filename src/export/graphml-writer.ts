import type { AbstractGraph, Attributes } from "graphology-types";

/**
 * GraphML writer. graphology-graphml only parses (its 0.5 release has no writer), so this writes
 * the small subset kgrag needs: typed <key> declarations inferred from the values, nodes and edges
 * with <data> children, undirected by default. The tests read its output back with
 * graphology-graphml's parser.
 */
export function writeGraphml(graph: AbstractGraph): string {
  const nodeKeys = declareKeys(
    "node",
    graph.mapNodes((_, attrs) => attrs),
  );
  const edgeKeys = declareKeys(
    "edge",
    graph.mapEdges((_, attrs) => attrs),
  );
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" ' +
      'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
      'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">',
    ...[...nodeKeys, ...edgeKeys].map(
      (k) => `  <key id="${k.id}" for="${k.domain}" attr.name="${escapeXml(k.name)}" attr.type="${k.type}"/>`,
    ),
    `  <graph id="G" edgedefault="${graph.type === "directed" ? "directed" : "undirected"}">`,
  ];
  graph.forEachNode((node, attrs) => {
    lines.push(`    <node id="${escapeXml(node)}">${dataElements(nodeKeys, attrs)}</node>`);
  });
  graph.forEachEdge((edge, attrs, source, target, _s, _t, undirected) => {
    const directed = graph.type === "mixed" && !undirected ? ' directed="true"' : "";
    lines.push(
      `    <edge id="${escapeXml(edge)}" source="${escapeXml(source)}" target="${escapeXml(target)}"${directed}>` +
        `${dataElements(edgeKeys, attrs)}</edge>`,
    );
  });
  lines.push("  </graph>", "</graphml>", "");
  return lines.join("\n");
}

type GraphmlType = "boolean" | "int" | "double" | "string";

interface KeyDeclaration {
  id: string;
  domain: "node" | "edge";
  name: string;
  type: GraphmlType;
}

/** One key per attribute name, typed by the values it takes (mixed values fall back to string). */
function declareKeys(domain: "node" | "edge", all: Attributes[]): KeyDeclaration[] {
  const types = new Map<string, GraphmlType>();
  for (const attrs of all) {
    for (const [name, value] of Object.entries(attrs)) {
      if (value === undefined || value === null) continue;
      const type = typeOf(value);
      const seen = types.get(name);
      types.set(name, seen === undefined || seen === type ? type : widen(seen, type));
    }
  }
  return [...types].map(([name, type], i) => ({ id: `${domain[0]}${i}`, domain, name, type }));
}

function typeOf(value: unknown): GraphmlType {
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number")
    return Number.isInteger(value) && Math.abs(value) < 2 ** 31 ? "int" : "double";
  return "string";
}

function widen(a: GraphmlType, b: GraphmlType): GraphmlType {
  const numeric = new Set<GraphmlType>(["int", "double"]);
  return numeric.has(a) && numeric.has(b) ? "double" : "string";
}

function dataElements(keys: KeyDeclaration[], attrs: Attributes): string {
  return keys
    .filter((k) => attrs[k.name] !== undefined && attrs[k.name] !== null)
    .map((k) => `<data key="${k.id}">${escapeXml(valueText(attrs[k.name]))}</data>`)
    .join("");
}

function valueText(value: unknown): string {
  return typeof value === "string"
    ? value
    : typeof value === "object"
      ? JSON.stringify(value)
      : String(value);
}

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(/\r/g, "&#13;")
    .replace(/\t/g, "&#9;");
}
