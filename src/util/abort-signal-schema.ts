import { z } from "zod";

/**
 * An option holding an AbortSignal, checked by what the library uses of one, so a signal from
 * another realm or a polyfill passes too.
 */
export const AbortSignalSchema = z.custom<AbortSignal>(
  (value) =>
    typeof value === "object" &&
    value !== null &&
    "aborted" in value &&
    typeof (value as AbortSignal).addEventListener === "function",
  { error: "must be an AbortSignal" },
);
