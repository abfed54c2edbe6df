import type { KgragConfig } from "../config.js";
import type { EntityMention, EntityRecord, RelationshipMention, RelationshipRecord } from "../types.js";
import { hashJson } from "../util/hash.js";
import { countTokens, tokenBound } from "../util/tokens.js";
import { withoutContainedFragments } from "./contained-fragments.js";
import { DESCRIPTION_SEPARATOR, splitRelationshipKey } from "./keys.js";
import { UNKNOWN_TYPE } from "./mentions.js";

export { type ChunkMentions, mentionsFromExtraction } from "./mentions.js";

/** The summary thresholds: at this many fragments or tokens a description is summarised. */
export type FoldOptions = Pick<KgragConfig["merge"], "summaryMinFragments" | "summaryMinTokens">;

/**
 * Folds every mention of one entity into its record. The result depends only on the set of
 * mentions, never on their order, which is what makes "delete, then re-fold" equal a clean run.
 * `previous` lends its summary when the fragments it was made from are unchanged.
 */
export function foldEntity(
  key: string,
  mentions: EntityMention[],
  opts: FoldOptions,
  previous?: EntityRecord,
): EntityRecord | null {
  const own = sortByChunk(mentions.filter((m) => m.entityKey === key));
  if (own.length === 0) return null;
  const fragments = uniqueFragments(own.map((m) => m.description));
  return {
    key,
    name: mostFrequent(own.map((m) => m.name)),
    type: mostFrequentType(own.map((m) => m.type)),
    ...describe(fragments, opts, previous),
    sourceChunkIds: sortedUnique(own.map((m) => m.chunkId)),
  };
}

export function foldRelationship(
  key: string,
  mentions: RelationshipMention[],
  opts: FoldOptions,
  previous?: RelationshipRecord,
): RelationshipRecord | null {
  const own = sortByChunk(mentions.filter((m) => m.relationshipKey === key));
  if (own.length === 0) return null;
  const [sourceKey, targetKey] = splitRelationshipKey(key);
  return {
    key,
    sourceKey,
    targetKey,
    ...describe(uniqueFragments(own.map((m) => m.description)), opts, previous),
    keywords: keywordsByFrequency(own.map((m) => m.keywords)),
    weight: own.reduce((sum, m) => sum + m.strength, 0),
    sourceChunkIds: sortedUnique(own.map((m) => m.chunkId)),
  };
}

interface Described {
  description: string;
  fragments: string[];
  fragmentsHash: string;
  needsSummary: boolean;
}

function describe(
  fragments: string[],
  opts: FoldOptions,
  previous?: { description: string; fragmentsHash: string; needsSummary: boolean },
): Described {
  const fragmentsHash = hashJson(fragments);
  const joined = fragments.join(DESCRIPTION_SEPARATOR);
  if (!reachesSummaryThreshold(fragments, joined, opts)) {
    return { description: joined, fragments, fragmentsHash, needsSummary: false };
  }
  if (previous && previous.fragmentsHash === fragmentsHash && !previous.needsSummary) {
    return { description: previous.description, fragments, fragmentsHash, needsSummary: false };
  }
  // Until the summary is written, the joined fragments stand in so nothing is hidden from queries.
  return { description: joined, fragments, fragmentsHash, needsSummary: true };
}

/**
 * A single fragment is kept as written, however long: there is nothing to reconcile. Every merge
 * re-folds the entities it touches, so the tokenizer runs only when the byte count (an upper
 * bound of the token count) does not already settle it.
 */
export function reachesSummaryThreshold(fragments: string[], joined: string, opts: FoldOptions): boolean {
  if (fragments.length >= opts.summaryMinFragments) return true;
  if (fragments.length <= 1 || tokenBound(joined) < opts.summaryMinTokens) return false;
  return countTokens(joined) >= opts.summaryMinTokens;
}

/** Chunk order first; the other fields only break ties between mentions of one chunk. */
function sortByChunk<T extends { chunkId: string; description: string }>(mentions: T[]): T[] {
  return [...mentions].sort(
    (a, b) => compare(a.chunkId, b.chunkId) || compare(JSON.stringify(a), JSON.stringify(b)),
  );
}

/**
 * Non-empty descriptions, first occurrence kept, repeats (by case and spacing) dropped, and so is
 * a fragment that only repeats the start or end of another.
 */
function uniqueFragments(descriptions: string[]): string[] {
  const seen = new Set<string>();
  const fragments: string[] = [];
  for (const description of descriptions) {
    const fragment = description.trim();
    const folded = fragment.replace(/\s+/g, " ").toLowerCase();
    if (fragment && !seen.has(folded)) {
      seen.add(folded);
      fragments.push(fragment);
    }
  }
  return withoutContainedFragments(fragments);
}

/** Most frequent value; ties go to the one seen first. */
function mostFrequent(values: string[]): string {
  const counts = countValues(values);
  let best = values[0] ?? "";
  for (const value of counts.keys()) if (counts.get(value)! > counts.get(best)!) best = value;
  return best;
}

/** Most frequent type other than the placeholder; ties go to the alphabetically first. */
function mostFrequentType(types: string[]): string {
  const counts = countValues(types.filter((type) => type !== UNKNOWN_TYPE));
  const ranked = [...counts.entries()].sort(([a, x], [b, y]) => y - x || compare(a, b));
  return ranked[0]?.[0] ?? UNKNOWN_TYPE;
}

/** United keywords (case-insensitive), the most often given first, then in first-seen order. */
function keywordsByFrequency(lists: string[][]): string[] {
  const byFolded = new Map<string, { keyword: string; count: number; order: number }>();
  for (const keyword of lists.flat()) {
    const folded = keyword.toLowerCase();
    const entry = byFolded.get(folded);
    if (entry) entry.count += 1;
    else byFolded.set(folded, { keyword, count: 1, order: byFolded.size });
  }
  return [...byFolded.values()].sort((a, b) => b.count - a.count || a.order - b.order).map((e) => e.keyword);
}

function countValues(values: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

function sortedUnique(values: string[]): string[] {
  return [...new Set(values)].sort(compare);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
