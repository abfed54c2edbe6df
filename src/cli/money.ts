/**
 * A cost in dollars: four decimals under a dollar, where estimates of small runs fall. Kept apart
 * from output.ts, whose string-width builds Unicode tables and an ICU segmenter as it loads (about
 * 30 ms), so that `kgrag index`, which prints costs but no table, does not load it before its first
 * request.
 */
export const money = (value: number) => `$${value.toFixed(value < 1 ? 4 : 2)}`;
