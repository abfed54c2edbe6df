import { createHash } from "node:crypto";

/** Short, stable content hash (sha256, hex, 16 chars by default). */
export function hashText(text: string, length = 16): string {
  return createHash("sha256").update(text).digest("hex").slice(0, length);
}

/** Hash of a JSON-serialisable value with sorted object keys, so key order never changes it. */
export function hashJson(value: unknown, length = 16): string {
  return hashText(stableStringify(value), length);
}

export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) {
    // Strings, numbers, booleans and nulls have no keys to sort: JSON.stringify writes the same
    // text in one native pass (a description's fragments are hashed at every re-fold).
    if (allScalars(value)) return JSON.stringify(value);
    return `[${value.map(stableStringify).join(",")}]`;
  }
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Every index, holes included (a hole is no scalar: `every` would skip it, JSON.stringify writes null). */
function allScalars(values: unknown[]): boolean {
  for (let i = 0; i < values.length; i++) if (!isJsonScalar(values[i])) return false;
  return true;
}

function isJsonScalar(value: unknown): boolean {
  return (
    value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean"
  );
}
