import { readableCitations } from "../../community/citations.js";

/** Longest bracket held back as a possible citation marker; a longer one is ordinary text. */
const MAX_MARKER = 80;

export interface TokenFilter {
  push(delta: string): void;
  /** Sends what is still held back; call once the answer is complete. */
  end(): void;
}

/**
 * Cleans citation markers out of an answer while it streams (see readableCitations), so the
 * terminal shows what the final answer holds: text from an unclosed "[" is held back until its "]" arrives (or it grows too long
 * to be a marker), and so is trailing whitespace, which a removed marker takes with it.
 */
export function citationFilter(
  emit: (delta: string) => void,
  shown: ReadonlySet<string>,
  passages?: ReadonlySet<number>,
): TokenFilter {
  let pending = "";
  const send = (text: string) => {
    const clean = readableCitations(text, shown, passages);
    if (clean) emit(clean);
  };
  return {
    push(delta) {
      pending += delta;
      let cut = pending.length;
      const open = pending.lastIndexOf("[");
      if (open >= 0 && !pending.includes("]", open) && pending.length - open <= MAX_MARKER) cut = open;
      while (cut > 0 && /\s/.test(pending[cut - 1] as string)) cut--;
      send(pending.slice(0, cut));
      pending = pending.slice(cut);
    },
    end() {
      send(pending);
      pending = "";
    },
  };
}
