import neo4j, {
  type Integer,
  type Record as Neo4jRecord,
  type Node,
  type Path,
  type Relationship,
} from "neo4j-driver";

/**
 * Driver values turned into plain JSON-able data, the only shape that leaves the Neo4j adapter:
 * Integer → number (a string when it does not fit a double exactly), temporal values → ISO-8601
 * text, nodes/relationships/paths → small objects, lists and maps recursively.
 */
export type PlainValue = null | boolean | number | string | PlainValue[] | { [key: string]: PlainValue };
export type PlainRecord = Record<string, PlainValue>;

export function recordToPlain(record: Neo4jRecord): PlainRecord {
  const plain: PlainRecord = {};
  for (const key of record.keys) plain[String(key)] = toPlain(record.get(key));
  return plain;
}

export function toPlain(value: unknown): PlainValue {
  if (value === null || value === undefined) return null;
  if (typeof value === "number" || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "bigint") return bigintToPlain(value);
  if (neo4j.isInt(value)) return integerToPlain(value);
  if (Array.isArray(value)) return value.map(toPlain);
  if (neo4j.isDuration(value)) return durationText(value);
  if (isTemporal(value)) return String(value);
  if (neo4j.isPoint(value)) return pointToPlain(value);
  if (neo4j.isNode(value)) return nodeToPlain(value);
  if (neo4j.isRelationship(value)) return relationshipToPlain(value);
  if (neo4j.isPath(value)) return pathToPlain(value);
  if (neo4j.isVector(value)) return [...value.asTypedArray()].map(toPlain);
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64");
  if (typeof value === "object") {
    const out: { [key: string]: PlainValue } = {};
    for (const [key, inner] of Object.entries(value)) out[key] = toPlain(inner);
    return out;
  }
  return String(value);
}

function integerToPlain(value: Integer): number | string {
  return value.inSafeRange() ? value.toNumber() : value.toString();
}

function bigintToPlain(value: bigint): number | string {
  const asNumber = Number(value);
  return Number.isSafeInteger(asNumber) ? asNumber : value.toString();
}

/**
 * ISO-8601 as Neo4j writes it: the driver leaves a "T" with no time after it ("P1DT" for one day,
 * "P1Y2MT"), which date libraries refuse.
 */
function durationText(value: unknown): string {
  return String(value).replace(/T$/, "");
}

function isTemporal(value: unknown): boolean {
  return (
    neo4j.isDate(value) ||
    neo4j.isDateTime(value) ||
    neo4j.isLocalDateTime(value) ||
    neo4j.isLocalTime(value) ||
    neo4j.isTime(value) ||
    neo4j.isDuration(value)
  );
}

function pointToPlain(point: { srid: unknown; x: number; y: number; z?: number }): PlainValue {
  const plain: { [key: string]: PlainValue } = { srid: toPlain(point.srid), x: point.x, y: point.y };
  if (point.z !== undefined) plain.z = point.z;
  return plain;
}

function nodeToPlain(node: Node): PlainValue {
  return { elementId: node.elementId, labels: [...node.labels], properties: toPlain(node.properties) };
}

function relationshipToPlain(rel: Relationship): PlainValue {
  return {
    elementId: rel.elementId,
    type: rel.type,
    startElementId: rel.startNodeElementId,
    endElementId: rel.endNodeElementId,
    properties: toPlain(rel.properties),
  };
}

function pathToPlain(path: Path): PlainValue {
  return {
    nodes: [path.start, ...path.segments.map((s) => s.end)].map(nodeToPlain),
    relationships: path.segments.map((s) => relationshipToPlain(s.relationship)),
  };
}
