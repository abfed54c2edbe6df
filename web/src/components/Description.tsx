import { descriptionParts } from "./description-parts";

/** A description as its parts (the API's lines), one paragraph each. */
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
