import { BoundedMemo } from "../../util/bounded-memo.js";
import { countTokens, tokenBound } from "../../util/tokens.js";

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

/** The cost of an item's line, exact and as an upper bound. */
export interface ItemMeasures<T> {
  exact: (item: T) => number;
  bound: (item: T) => number;
}

/** One measured line: the fields it was rendered from besides its key, and its costs. */
interface MeasuredLine {
  fields: readonly string[];
  exact?: number;
  bound?: number;
}

/** Lines kept per key by measuresByKey. */
const MAX_LINES_PER_KEY = 16;

/**
 * Line costs remembered by a text that identifies the item, checked against the item's other
 * fields: an entity's or relationship's description is the very string the read caches hold, so
 * looking it up hashes nothing new, where a memo keyed by the rendered line renders and hashes a
 * fresh string of a few hundred characters for every candidate of every query. Two items sharing
 * a key (the same description) keep a line each. Keyed by text, it cannot go stale.
 */
export function measuresByKey<T>(
  render: (item: T) => string,
  key: (item: T) => string,
  fields: (item: T) => readonly string[],
): ItemMeasures<T> {
  const lines = new BoundedMemo<string, MeasuredLine[]>(MAX_ENTRIES);
  const measured = (item: T): MeasuredLine => {
    const known = lines.get(key(item), () => []);
    const own = fields(item);
    let found = known.find((m) => sameFields(m.fields, own));
    if (!found) {
      found = { fields: own };
      // Many items can share one description (an empty one, a template): past a few lines a key
      // keeps no more, so its linear search stays short; the rest are measured each time.
      if (known.length < MAX_LINES_PER_KEY) known.push(found);
    }
    return found;
  };
  return {
    exact: (item) => {
      const m = measured(item);
      m.exact ??= countTokens(render(item));
      return m.exact;
    },
    bound: (item) => {
      const m = measured(item);
      m.bound ??= tokenBound(render(item));
      return m.bound;
    },
  };
}

function sameFields(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The longest prefix of `items` whose rendered lines fit in `budget` tokens. */
export function fitting<T>(
  items: T[],
  render: (item: T) => string,
  budget: number,
  measure: TokenMeasure = lineTokens,
): { items: T[]; tokens: number } {
  return fittingBy(items, (item) => measure(render(item)), budget);
}

/** The longest prefix of `items` whose lines, costing `cost` tokens each, fit in `budget` tokens. */
export function fittingBy<T>(
  items: T[],
  cost: (item: T) => number,
  budget: number,
): { items: T[]; tokens: number } {
  const kept: T[] = [];
  let tokens = 0;
  for (const item of items) {
    const itemTokens = cost(item) + 1; // +1 for the line break
    if (tokens + itemTokens > budget) break;
    kept.push(item);
    tokens += itemTokens;
  }
  return { items: kept, tokens };
}
