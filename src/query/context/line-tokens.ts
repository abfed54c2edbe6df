import { countTokens } from "../../util/tokens.js";

/** Enough for the entities and relationships of many queries; cleared whole when full. */
const MAX_ENTRIES = 4096;
const counts = new Map<string, number>();

/**
 * Token count of one context line, remembered: the same entities and relationships (hubs above
 * all) come back query after query, and tokenising their descriptions is the costliest step of
 * building a context.
 */
export function lineTokens(line: string): number {
  let n = counts.get(line);
  if (n === undefined) {
    n = countTokens(line);
    if (counts.size >= MAX_ENTRIES) counts.clear();
    counts.set(line, n);
  }
  return n;
}
