import { type CypherNode, childRule, isRule, tokenText } from "./parse-tree.js";
import { type Binding, collectBindings, knownLabels } from "./pattern-elements.js";
import type { GraphSchema, SchemaPattern } from "./schema.js";

type Direction = "out" | "in" | "either";

/** One hop of a path pattern: (left)-[rel]-(right), with what is known about each end. */
interface Segment {
  left: string[] | undefined;
  types: string[];
  right: string[] | undefined;
  direction: Direction;
  /** `*1..3` or a quantifier: the ends belong to different hops, so they are checked one by one. */
  variableLength: boolean;
}

/**
 * Checks every relationship of every path pattern (MATCH, EXISTS/COUNT subqueries, pattern
 * predicates and comprehensions, shortest paths) against the (start)-[type]->(end) patterns of the
 * schema: `(:Movie)-[:ACTED_IN]->(:Person)` is an error when the graph only has Person-to-Movie.
 * Ends whose labels are unknown match anything, so only provably impossible hops are reported.
 */
export function checkDirections(tree: CypherNode, schema: GraphSchema): string[] {
  if (schema.patterns.length === 0) return [];
  const bindings = collectBindings(tree);
  const errors = new Set<string>();
  for (const segment of pathSegments(tree, bindings)) {
    const error = checkSegment(segment, schema);
    if (error) errors.add(error);
  }
  return [...errors];
}

/** Rule nodes whose children are an alternating node/relationship sequence. */
function pathSegments(tree: CypherNode, bindings: Map<string, Binding>): Segment[] {
  const segments: Segment[] = [];
  const visit = (node: CypherNode) => {
    const elements = node.children.filter((child) => PATH_PARTS.has(child.name) && child.children.length > 0);
    elements.forEach((element, i) => {
      if (!isRule(element, "relationshipPattern")) return;
      // A quantifier ({1,3}, +, *) sits between a relationship and the node after it.
      const quantifier = elements[i + 1]?.name === "quantifier" ? elements[i + 1] : undefined;
      const before = elements[i - 1];
      const after = elements[i + (quantifier ? 2 : 1)];
      const length = childRule(element, "pathLength") ?? quantifier;
      const types = knownLabels(element, bindings);
      // A path that may have zero hops (*0.., {0,}, *) puts no constraint on its ends.
      if (!types || (length && mayBeEmpty(length))) return;
      segments.push({
        left: endLabels(before, bindings),
        types,
        right: endLabels(after, bindings),
        direction: directionOf(element),
        variableLength: length !== undefined,
      });
    });
    for (const child of node.children) visit(child);
  };
  visit(tree);
  return segments;
}

const PATH_PARTS = new Set(["nodePattern", "relationshipPattern", "quantifier", "parenthesizedPath"]);

function endLabels(element: CypherNode | undefined, bindings: Map<string, Binding>): string[] | undefined {
  return element && isRule(element, "nodePattern") ? knownLabels(element, bindings) : undefined;
}

/** `*0..3`, `*0` (pathLength) or `*`, `{,3}`, `{0,3}` (quantifier) allow a zero-hop path. */
function mayBeEmpty(length: CypherNode): boolean {
  const text = tokenText(length);
  if (length.name === "pathLength") return /^\*0+(\.\.|$)/.test(text);
  return text === "*" || /^\{0*(,|\})/.test(text);
}

function directionOf(rel: CypherNode): Direction {
  const left = childRule(rel, "leftArrow") !== undefined;
  const right = childRule(rel, "rightArrow") !== undefined;
  if (left === right) return "either";
  return right ? "out" : "in";
}

function checkSegment(segment: Segment, schema: GraphSchema): string | undefined {
  const labels = new Set(schema.labels);
  const types = segment.types.filter((type) => schema.relationshipTypes.includes(type));
  const left = knownOnly(segment.left, labels);
  const right = knownOnly(segment.right, labels);
  // Unknown names are reported elsewhere; a hop with no known end cannot be disproved.
  if (types.length === 0 || left === "unknown" || right === "unknown") return undefined;
  if (left === undefined && right === undefined) return undefined;
  const fits = segment.variableLength ? endsFit(schema, types, segment.direction) : hopFits(schema, types);
  const ok =
    (segment.direction !== "in" && fits(left, right)) || (segment.direction !== "out" && fits(right, left));
  if (ok) return undefined;
  return directionError(segment, left, right, types, schema.patterns);
}

type Fits = (start: string[] | undefined, end: string[] | undefined) => boolean;

/** One hop: some pattern joins exactly these ends. */
function hopFits(schema: GraphSchema, types: string[]): Fits {
  return (start, end) =>
    schema.patterns.some(
      (p) => types.includes(p.type) && (!start || start.includes(p.start)) && (!end || end.includes(p.end)),
    );
}

/**
 * Several hops: the first node starts some hop and the last one ends some hop; without a direction
 * each hop may run either way, so each end only has to touch some hop.
 */
function endsFit(schema: GraphSchema, types: string[], direction: Direction): Fits {
  const hops = schema.patterns.filter((p) => types.includes(p.type));
  const touches = (labels: string[] | undefined, side: Set<string>) =>
    !labels || labels.some((l) => side.has(l));
  const starts = new Set(hops.map((p) => p.start));
  const ends = new Set(hops.map((p) => p.end));
  if (direction === "either") {
    const either = new Set([...starts, ...ends]);
    return (start, end) => touches(start, either) && touches(end, either);
  }
  return (start, end) => touches(start, starts) && touches(end, ends);
}

/** Keeps schema labels; "unknown" when the element only names labels the schema lacks. */
function knownOnly(names: string[] | undefined, labels: Set<string>): string[] | undefined | "unknown" {
  if (!names) return undefined;
  const known = names.filter((name) => labels.has(name));
  return known.length ? known : "unknown";
}

function directionError(
  segment: Segment,
  left: string[] | undefined,
  right: string[] | undefined,
  types: string[],
  patterns: SchemaPattern[],
): string {
  const node = (labels: string[] | undefined) => (labels ? `(:${labels.join("|")})` : "()");
  const rel = `[:${types.join("|")}]`;
  const arrow = { out: `-${rel}->`, in: `<-${rel}-`, either: `-${rel}-` }[segment.direction];
  const existing = patterns
    .filter((p) => types.includes(p.type))
    .slice(0, 6)
    .map((p) => `(:${p.start})-[:${p.type}]->(:${p.end})`);
  const known = existing.length
    ? `the schema only has ${existing.join(", ")}`
    : "the schema has no such pattern";
  return `Wrong relationship direction or endpoints: ${node(left)}${arrow}${node(right)} does not exist; ${known}`;
}
