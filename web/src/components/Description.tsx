/** A merged description keeps each source's text apart with <SEP>; a reader sees them as parts. */
export function descriptionParts(text: string): string[] {
  return text
    .split("<SEP>")
    .map((part) => part.trim())
    .filter(Boolean);
}

/** A description as its parts, one line each, without the raw separator. */
export function Description({ text, class: className }: { text: string; class?: string }) {
  const parts = descriptionParts(text);
  if (parts.length <= 1) return <div class={className}>{parts[0] ?? ""}</div>;
  return (
    <div class={className}>
      {parts.map((part, i) => (
        <p key={i} class="description-part">
          {part}
        </p>
      ))}
    </div>
  );
}
