import { countTokens } from "../util/tokens.js";
import type { GraphSchema } from "./schema.js";

export interface RenderSchemaOptions {
  /** Above this many tokens the schema is trimmed to the parts the question touches. */
  maxTokens?: number;
}

/**
 * The schema as compact text for a prompt. A large schema is cut down to the labels and types the
 * question mentions (by name or property) plus their direct neighbours, and says what it left out.
 */
export function renderSchema(
  schema: GraphSchema,
  question?: string,
  options: RenderSchemaOptions = {},
): string {
  const maxTokens = options.maxTokens ?? 2500;
  const full = renderParts(schema, new Set(schema.labels), new Set(schema.relationshipTypes));
  if (!question || countTokens(full) <= maxTokens) return full;
  const { labels, types } = relevantParts(schema, question);
  if (labels.size === 0 && types.size === 0) return full;
  const omitted = schema.labels.filter((label) => !labels.has(label));
  const shown =
    omitted.slice(0, 40).join(", ") + (omitted.length > 40 ? `, ... ${omitted.length - 40} more` : "");
  const note = omitted.length
    ? `\n(Schema trimmed to the parts relevant to the question; other labels: ${shown})`
    : "";
  return renderParts(schema, labels, types) + note;
}

function renderParts(schema: GraphSchema, labels: Set<string>, types: Set<string>): string {
  const lines = ["Node labels and properties:"];
  for (const label of schema.labels) {
    if (labels.has(label)) lines.push(`(:${label}${propertyList(schema.nodeProperties[label])})`);
  }
  lines.push("Relationships (start)-[:TYPE]->(end), directions as stored:");
  const patterned = new Set<string>();
  for (const p of schema.patterns) {
    if (!types.has(p.type) || !labels.has(p.start) || !labels.has(p.end)) continue;
    patterned.add(p.type);
    lines.push(
      `(:${p.start})-[:${p.type}${propertyList(schema.relationshipProperties[p.type])}]->(:${p.end})`,
    );
  }
  for (const type of schema.relationshipTypes) {
    if (types.has(type) && !patterned.has(type) && !schema.patterns.some((p) => p.type === type)) {
      lines.push(`[:${type}${propertyList(schema.relationshipProperties[type])}] (endpoints unknown)`);
    }
  }
  const values = sampleValueLines(schema, labels);
  if (values.length) lines.push("Known values of some properties:", ...values);
  return lines.join("\n");
}

function propertyList(properties: Record<string, string> | undefined): string {
  const entries = Object.entries(properties ?? {});
  if (entries.length === 0) return "";
  return ` {${entries.map(([name, type]) => `${name}: ${type}`).join(", ")}}`;
}

function sampleValueLines(schema: GraphSchema, labels: Set<string>): string[] {
  const lines: string[] = [];
  for (const [label, properties] of Object.entries(schema.sampleValues ?? {})) {
    if (!labels.has(label)) continue;
    for (const [property, values] of Object.entries(properties)) {
      lines.push(`${label}.${property}: ${values.map((v) => JSON.stringify(v)).join(", ")}`);
    }
  }
  return lines;
}

/**
 * Labels and types named by the question, plus neighbours. A property name counts only when few
 * labels share it ("weight" on every label says nothing), or when no label or type is named.
 */
function relevantParts(schema: GraphSchema, question: string): { labels: Set<string>; types: Set<string> } {
  const words = new Set(wordsOf(question));
  const mentions = (name: string) => wordsOf(name).some((word) => words.has(word));
  const labels = new Set(schema.labels.filter(mentions));
  const types = new Set(schema.relationshipTypes.filter(mentions));
  const byProperty = ownersOfMentionedProperties(schema, mentions);
  const distinctive = byProperty.filter((owners) => owners.length <= 2);
  for (const owners of labels.size || types.size ? distinctive : byProperty) {
    for (const owner of owners) (schema.labels.includes(owner) ? labels : types).add(owner);
  }
  const seeds = new Set(labels);
  for (const p of schema.patterns) {
    if (types.has(p.type) || seeds.has(p.start) || seeds.has(p.end)) {
      types.add(p.type);
      labels.add(p.start);
      labels.add(p.end);
    }
  }
  return { labels, types };
}

/** For each property the question mentions: the labels and types that have it. */
function ownersOfMentionedProperties(schema: GraphSchema, mentions: (name: string) => boolean): string[][] {
  const owners = new Map<string, string[]>();
  const tables = [schema.nodeProperties, schema.relationshipProperties];
  for (const table of tables) {
    for (const [owner, properties] of Object.entries(table)) {
      for (const property of Object.keys(properties).filter(mentions)) {
        owners.set(property, [...(owners.get(property) ?? []), owner]);
      }
    }
  }
  return [...owners.values()];
}

/** Lower-case word stems of free text or identifiers (camelCase, snake_case, plurals). */
export function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 2)
    .map((word) => word.replace(/(ies)$/, "y").replace(/(?<!s)s$/, ""));
}
