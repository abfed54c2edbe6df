import { entityKey } from "../merge/keys.js";
import type { Mention, MentionKind, TextAnalysis } from "../nlp/types.js";

/** One entity of a chunk with everything the offline extractor needs to describe and relate it. */
export interface ChunkEntity {
  key: string;
  name: string;
  /** Also the entity's type: person, location, organization or concept. */
  kind: MentionKind;
  named: boolean;
  isTitle: boolean;
  /** Sentences it appears in, in text order. */
  sentences: number[];
  count: number;
  /** Job titles the text writes before a person's name ("CEO"), in order of appearance. */
  roles: string[];
  firstAt: number;
  score: number;
}

/**
 * Groups the analysis's mentions by normalised name, adds the title entity, ranks them (names
 * over noun phrases, then frequency, salience and phrase length, then first appearance) and keeps
 * the best `limit`. The title entity is always kept: short passages often name their subject only
 * in the title (the caller passes it only when the passage names it too). What only a heading line
 * (`headingLines`, sentence indices) says is no entity: "Revenue Overview" names a section.
 */
export function chunkEntities(
  analysis: TextAnalysis,
  title: string | null,
  limit: number,
  headingLines: ReadonlySet<number> = new Set(),
): ChunkEntity[] {
  const byKey = new Map<string, ChunkEntity>();
  for (const mention of analysis.mentions) {
    const key = entityKey(mention.name);
    if (!key || mention.name.length > 80 || !namesAnEntity(mention)) continue;
    const entity = byKey.get(key);
    if (!entity) {
      byKey.set(key, {
        key,
        name: mention.name,
        kind: mention.kind,
        named: mention.named,
        isTitle: false,
        sentences: [mention.sentence],
        count: 1,
        roles: mention.role ? [mention.role] : [],
        firstAt: mention.start,
        score: 0,
      });
      continue;
    }
    entity.count++;
    if (mention.role && !entity.roles.includes(mention.role)) entity.roles.push(mention.role);
    if (!entity.sentences.includes(mention.sentence)) entity.sentences.push(mention.sentence);
    // A name beats a lower-case phrase with the same key ("Demon" as name vs "demon").
    if (mention.named && !entity.named)
      Object.assign(entity, { name: mention.name, named: true, kind: mention.kind });
    else if (entity.kind === "concept" && mention.kind !== "concept") entity.kind = mention.kind;
  }
  for (const [key, entity] of byKey)
    if (entity.sentences.every((s) => headingLines.has(s))) byKey.delete(key);
  if (title) addTitle(byKey, title);
  const salient = new Set(analysis.salient.map(entityKey));
  const entities = [...byKey.values()];
  for (const entity of entities) entity.score = rankScore(entity, salient.has(entity.key));
  entities.sort((a, b) => b.score - a.score || a.firstAt - b.firstAt || (a.key < b.key ? -1 : 1));
  return entities.slice(0, limit);
}

/**
 * Names make entities, and so do English noun phrases ("quantum annealing"). Chinese noun runs and
 * keywords are left out: jieba's tags do not tell a term from a bare title (首席执行官), a generic
 * activity (市场销售) or any other common noun, and such entities only crowd the graph and pair
 * up as false duplicates. Their words still give the relationships their keywords.
 */
function namesAnEntity(mention: Mention): boolean {
  return !mention.chineseCommonNoun;
}

function addTitle(byKey: Map<string, ChunkEntity>, title: string): void {
  const key = entityKey(title);
  if (!key) return;
  const existing = byKey.get(key);
  if (existing) {
    Object.assign(existing, { isTitle: true, named: true, name: title });
    return;
  }
  byKey.set(key, {
    key,
    name: title,
    kind: "concept",
    named: true,
    isTitle: true,
    sentences: [],
    count: 0,
    roles: [],
    firstAt: -1,
    score: 0,
  });
}

function rankScore(entity: ChunkEntity, salient: boolean): number {
  if (entity.isTitle) return Number.POSITIVE_INFINITY;
  const words = entity.name.split(" ").length;
  return (
    entity.count * (entity.named ? 2 : 1) +
    (entity.named ? 2 : 0) +
    (salient ? 1 : 0) +
    Math.min(words - 1, 2) * 0.25
  );
}

/** Sentences that say something: not a bare heading or title line holding only the name. */
export function isInformative(sentence: string, entity: ChunkEntity, headings: ReadonlySet<string>): boolean {
  if (sentence.length > 200) return true;
  const key = lineKey(sentence);
  return key !== entity.key && !headings.has(key);
}

/**
 * Indices of the sentences of `text` (the analysed text) that are one of the `headings` (entity
 * keys: the title line, markdown headings) on a line of their own. "Pick Me Up!" opening a
 * paragraph about the magazine is a sentence, not its title line.
 */
export function headingSentences(
  text: string,
  analysis: TextAnalysis,
  headings: ReadonlySet<string>,
): Set<number> {
  const found = new Set<number>();
  analysis.sentences.forEach((sentence, i) => {
    if (sentence.text.length <= 200 && headings.has(lineKey(sentence.text)) && isWholeLine(text, sentence))
      found.add(i);
  });
  return found;
}

function isWholeLine(text: string, span: { start: number; end: number }): boolean {
  const lineStart = text.lastIndexOf("\n", span.start - 1) + 1;
  const lineEnd = text.indexOf("\n", span.end);
  const rest = text.slice(span.end, lineEnd < 0 ? text.length : lineEnd);
  return text.slice(lineStart, span.start).trim() === "" && rest.trim() === "";
}

/** A line compared as a name: normalised, without its closing punctuation. */
function lineKey(sentence: string): string {
  return entityKey(sentence.replace(/[.!?。！？;；:]+$/, ""));
}
