import type { ChunkRecord } from "../types.js";

/** A document's text put back together from its chunks, whose offsets may overlap. */
export function textFromChunks(chunks: ChunkRecord[]): string {
  let text = "";
  for (const chunk of [...chunks].sort((a, b) => a.start - b.start)) {
    if (chunk.end <= text.length) continue;
    text += chunk.text.slice(Math.max(0, text.length - chunk.start));
  }
  return text;
}
