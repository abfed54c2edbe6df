/** A metadata value the API edits (src/types.ts Metadata): other values are shown, not edited. */
export type EditableValue = string | number | boolean;

/** One key/value line of the metadata editor, as typed. */
export interface MetadataLine {
  /** Stable across edits, for the list's keys. */
  id: number;
  key: string;
  value: string;
  /** The value the line was made from (none for a line added): its type is kept under a new key. */
  original?: EditableValue;
}

/** The editor's lines for a document's metadata, and the keys it shows but does not edit (lists, objects). */
export function metadataLines(metadata: Record<string, unknown>): {
  lines: MetadataLine[];
  fixed: [string, unknown][];
} {
  const lines: MetadataLine[] = [];
  const fixed: [string, unknown][] = [];
  for (const [key, value] of Object.entries(metadata)) {
    if (isEditable(value)) lines.push({ id: lines.length, key, value: String(value), original: value });
    else fixed.push([key, value]);
  }
  return { lines, fixed };
}

/**
 * The PATCH body's metadata for the lines as edited: a key set when new or its value changed, null
 * for a key no line names any more (removed, or renamed). Unchanged keys are left out, so an empty
 * result means nothing to save. A line with neither key nor value is a blank one added and unused.
 */
export function metadataPatch(
  metadata: Record<string, unknown>,
  lines: readonly MetadataLine[],
): Record<string, EditableValue | null> {
  const patch: Record<string, EditableValue | null> = {};
  const named = new Set<string>();
  for (const line of lines) {
    const key = line.key.trim();
    if (key === "" && line.value === "") continue;
    named.add(key);
    const before = metadata[key];
    if (isEditable(before) && String(before) === line.value) continue;
    // A renamed line keeps the type of the value it was made from.
    patch[key] = typedValue(line.value, key in metadata ? before : line.original);
  }
  for (const [key, value] of Object.entries(metadata))
    if (isEditable(value) && !named.has(key)) patch[key] = null;
  return patch;
}

function isEditable(value: unknown): value is EditableValue {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

/**
 * A typed value as the key's type was: a number stays a number and true/false a boolean when the
 * text still reads as one (the query filters compare by type). A new key's text that reads as a
 * number or a boolean becomes one; any other text is a string.
 */
function typedValue(text: string, before: unknown): EditableValue {
  if (typeof before === "string") return text;
  const number = Number(text);
  // Finite only: Infinity and NaN go out as JSON null, which would remove the key.
  if (
    typeof before !== "boolean" &&
    text.trim() !== "" &&
    Number.isFinite(number) &&
    String(number) === text.trim()
  )
    return number;
  if (typeof before !== "number" && (text === "true" || text === "false")) return text === "true";
  return text;
}
