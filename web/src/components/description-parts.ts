/**
 * The API sends a description readable, one part a line: a merged description keeps each source's
 * text on a line of its own (see docs/api.md); a reader sees them as parts.
 */
export function descriptionParts(text: string): string[] {
  return text
    .split("\n")
    .map((part) => part.trim())
    .filter(Boolean);
}
