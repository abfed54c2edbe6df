import type { PassageHighlight } from "../app-context";
import { highlightPieces } from "./highlight";

export function HighlightedText({ text, highlight }: { text: string; highlight?: PassageHighlight }) {
  return (
    <>
      {highlightPieces(text, highlight).map((piece, i) =>
        piece.marked ? <mark key={i}>{piece.text}</mark> : <span key={i}>{piece.text}</span>,
      )}
    </>
  );
}
