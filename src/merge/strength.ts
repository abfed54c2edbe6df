import { z } from "zod";

/**
 * A relationship mention's strength, 1 (a passing link) to 10 (as strong as links get), as the
 * extraction prompt asks for it. A relationship's weight is the sum of its mentions' strengths, so
 * an unbounded strength would outweigh the whole graph and decide its clustering alone.
 */
export const MIN_STRENGTH = 1;
export const MAX_STRENGTH = 10;

/** A strength as a caller gives it (CLI, REST, the library's curation API): out of range is refused. */
export const StrengthSchema = z
  .number()
  .min(MIN_STRENGTH, `strength must be from ${MIN_STRENGTH} to ${MAX_STRENGTH}`)
  .max(MAX_STRENGTH, `strength must be from ${MIN_STRENGTH} to ${MAX_STRENGTH}`);

/** Whether `value` is a strength a caller may give. */
export function isValidStrength(value: number): boolean {
  return StrengthSchema.safeParse(value).success;
}

/**
 * A strength from stored data (rules written before the range was enforced, a mention from any
 * source) brought into range: missing, broken or non-positive is the weakest link, too large the
 * strongest, so a stale value can neither be refused on loading nor skew the graph.
 */
export function clampStrength(value: number | undefined): number {
  if (value === undefined || !Number.isFinite(value) || value <= 0) return MIN_STRENGTH;
  return Math.min(MAX_STRENGTH, Math.max(MIN_STRENGTH, value));
}
