/** A merged description keeps each source's text apart with <SEP>; a reader sees them as parts. */
export function descriptionParts(text: string): string[] {
  return text
    .split("<SEP>")
    .map((part) => part.trim())
    .filter(Boolean);
}
