import { z } from "zod";

/**
 * An integer query-string parameter. An empty one (`?depth=`) counts as not given, so it takes the
 * default: coerced as it is, Number("") would read it as 0.
 */
export function queryNumber(min: number, max: number, fallback: number) {
  return z.preprocess(
    (value) => (value === "" ? undefined : value),
    z.coerce.number().int().min(min).max(max).default(fallback),
  );
}
