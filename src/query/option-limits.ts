import { z } from "zod";

/**
 * Upper bounds of the numeric query settings, the same for a query's options, the workspace config,
 * the CLI's flags and the HTTP bodies. Each is far above any real use, and low enough that no value
 * reaches an allocation sized by it: topK 99,999,999,999 was a RangeError from a typed array ("Invalid
 * typed array length") reported as an internal failure instead of a refused option.
 */

/** Entities, relationships or passages one query ranks: a context holds a few dozen of each. */
export const MAX_TOP_K = 10_000;

/** A context budget in tokens: above the context window of any model. */
export const MAX_CONTEXT_TOKENS = 2_000_000;

/** Community hierarchies are a handful of levels deep. */
export const MAX_COMMUNITY_LEVEL = 100;

/** Sentences an offline extractive answer quotes. */
export const MAX_ANSWER_SENTENCES = 1_000;

/** Entries of a cache of per-question work, and characters of one question. */
export const MAX_QUERY_CACHE_ENTRIES = 1_000_000;
export const MAX_QUESTION_CHARS = 1_000_000;

/** How many items a query ranks or keeps (topK, chunkTopK and the like): a whole number, at least `min`. */
export const rankDepth = (min = 1) => z.number().int().min(min).max(MAX_TOP_K);

/** A context budget in tokens: a whole number, at least `min`. */
export const tokenBudget = (min: number) => z.number().int().min(min).max(MAX_CONTEXT_TOKENS);
