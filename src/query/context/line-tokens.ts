import { BoundedMemo } from "../../util/bounded-memo.js";
import { countTokens } from "../../util/tokens.js";

/** An upper bound of a line's token count that needs no tokenizer (see util/tokens). */
export { tokenBound } from "../../util/tokens.js";

/** Enough for the entities and relationships of many queries; cleared whole when full. */
const MAX_ENTRIES = 16_384;
const counts = new BoundedMemo<string, number>(MAX_ENTRIES);

/**
 * Token count of one context line, remembered: the same entities and relationships (hubs above
 * all) come back query after query, and tokenising their descriptions is the costliest step of
 * building a context.
 */
export function lineTokens(line: string): number {
  return counts.get(line, () => countTokens(line));
}

/** How many tokens a line costs: exactly (`lineTokens`) or as an upper bound (`tokenBound`). */
export type TokenMeasure = (line: string) => number;

/** The longest prefix of `items` whose rendered lines fit in `budget` tokens. */
export function fitting<T>(
  items: T[],
  render: (item: T) => string,
  budget: number,
  measure: TokenMeasure = lineTokens,
): { items: T[]; tokens: number } {
  const kept: T[] = [];
  let tokens = 0;
  for (const item of items) {
    const cost = measure(render(item)) + 1; // +1 for the line break
    if (tokens + cost > budget) break;
    kept.push(item);
    tokens += cost;
  }
  return { items: kept, tokens };
}
