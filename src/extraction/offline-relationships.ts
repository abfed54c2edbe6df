import { singleLine } from "../nlp/line-breaks.js";
import type { ExtractedRelationship } from "../types.js";
import type { ChunkEntity } from "./offline-entities.js";
import type { ChunkSentences } from "./offline-text.js";

interface Pair {
  a: ChunkEntity;
  b: ChunkEntity;
  /** Sentences the two share. */
  shared: number;
  firstSentence: number;
  withTitle: boolean;
}

const MAX_KEYWORDS = 3;
/** One shared sentence is a fair link, each further one a stronger link. */
const SENTENCE_BASE = 3;
const SENTENCE_STEP = 2;
/** Sharing only the document (one is its title) is the weakest link we record. */
const TITLE_ONLY_STRENGTH = 2;

/**
 * Co-occurrence relationships in the spirit of GraphRAG's "fast" indexing: two entities named in
 * the same sentence are related (stronger the more sentences they share), and the title entity is
 * related to every entity of the chunk (weaker). The strongest `limit` pairs are kept so long
 * chunks stay bounded. `entities` is in rank order, which breaks ties.
 */
export function cooccurrences(
  sentences: ChunkSentences,
  entities: ChunkEntity[],
  limit: number,
): ExtractedRelationship[] {
  const rank = new Map(entities.map((e, i) => [e.key, i]));
  const pairs = new Map<string, Pair>();
  const inSentence = entitiesBySentence(entities, sentences.text.length);
  inSentence.forEach((present, sentence) => {
    for (let i = 0; i < present.length; i++) {
      for (let j = i + 1; j < present.length; j++) {
        const [a, b] = ordered(present[i]!, present[j]!, rank);
        const id = `${a.key}\u001f${b.key}`;
        const pair = pairs.get(id);
        if (!pair)
          pairs.set(id, { a, b, shared: 1, firstSentence: sentence, withTitle: a.isTitle || b.isTitle });
        else {
          pair.shared++;
          // A whole sentence describes the pair better than the end of one begun before the chunk.
          if (pair.firstSentence === 0 && sentences.partialOpening) pair.firstSentence = sentence;
        }
      }
    }
  });
  const title = entities.find((e) => e.isTitle);
  if (title) addTitlePairs(pairs, title, entities, rank, sentences.partialOpening);
  const ranked = [...pairs.values()].sort(
    (x, y) =>
      strength(y) - strength(x) ||
      rank.get(x.a.key)! + rank.get(x.b.key)! - (rank.get(y.a.key)! + rank.get(y.b.key)!) ||
      x.firstSentence - y.firstSentence,
  );
  return ranked.slice(0, limit).map((pair) => describePair(pair, sentences, title));
}

function entitiesBySentence(entities: ChunkEntity[], sentenceCount: number): ChunkEntity[][] {
  const bySentence: ChunkEntity[][] = Array.from({ length: sentenceCount }, () => []);
  for (const entity of entities) for (const s of entity.sentences) bySentence[s]?.push(entity);
  return bySentence;
}

function ordered(x: ChunkEntity, y: ChunkEntity, rank: Map<string, number>): [ChunkEntity, ChunkEntity] {
  return rank.get(x.key)! <= rank.get(y.key)! ? [x, y] : [y, x];
}

function addTitlePairs(
  pairs: Map<string, Pair>,
  title: ChunkEntity,
  entities: ChunkEntity[],
  rank: Map<string, number>,
  partialOpening: boolean,
): void {
  for (const other of entities) {
    if (other === title || other.sentences.length === 0) continue;
    const [a, b] = ordered(title, other, rank);
    const id = `${a.key}\u001f${b.key}`;
    const pair = pairs.get(id);
    if (pair) pair.withTitle = true;
    else
      pairs.set(id, {
        a,
        b,
        shared: 0,
        firstSentence: firstWhole(other.sentences, partialOpening),
        withTitle: true,
      });
  }
}

/** The entity's first sentence, past the chunk's opening when that continues a sentence begun before. */
function firstWhole(sentences: number[], partialOpening: boolean): number {
  return partialOpening && sentences[0] === 0 && sentences.length > 1 ? sentences[1]! : sentences[0]!;
}

function strength(pair: Pair): number {
  if (pair.shared === 0) return TITLE_ONLY_STRENGTH;
  return Math.min(10, SENTENCE_BASE + SENTENCE_STEP * pair.shared + (pair.withTitle ? 1 : 0));
}

function describePair(
  pair: Pair,
  sentences: ChunkSentences,
  title: ChunkEntity | undefined,
): ExtractedRelationship {
  // On one line, so a title wrapped across two lines is still found in it.
  const sentence = singleLine(sentences.text[pair.firstSentence] ?? "");
  const clipped = sentences.clipped[pair.firstSentence] ?? "";
  // A title-only link's sentence may not name the title; saying where it comes from keeps it readable alone.
  const description =
    pair.shared === 0 && title && !sentence.includes(title.name) ? `${title.name}: ${clipped}` : clipped;
  return {
    source: pair.a.name,
    target: pair.b.name,
    description,
    keywords: sentenceKeywords(sentences, pair.firstSentence, [pair.a.name, pair.b.name]),
    strength: strength(pair),
  };
}

/** A few content words of the sentence that are not part of the two names: verbs first, then nouns. */
function sentenceKeywords(sentences: ChunkSentences, sentence: number, names: string[]): string[] {
  const lowered = names.map((n) => n.toLowerCase());
  const keywords: string[] = [];
  for (const lemma of sentences.themes[sentence] ?? []) {
    if (!lowered.some((n) => n.includes(lemma))) keywords.push(lemma);
    if (keywords.length === MAX_KEYWORDS) break;
  }
  return keywords;
}
