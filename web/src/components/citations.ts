/** A piece of an answer: text, a passage citation [n] or a community report citation [C:id]. */
export type AnswerPiece = { text: string } | { cite: number } | { report: string };

/** One citation id: a passage number or C:<community id>. */
const CITED = String.raw`(?:C:[A-Za-z0-9-]+|\d+)`;
/** A bracket holding only citation ids: [1], [1, 3], [C:c0-ab12], [C:c0-ab12; 2]. */
const CITATION_BRACKET = new RegExp(String.raw`\[\s*(${CITED}(?:\s*[,;]\s*${CITED})*)\s*\]`, "g");

/**
 * Splits an answer into text and citations: `[1, 3]` yields two passage citations, `[C:c0-ab12]` a
 * community report's (global answers cite reports so); other brackets stay text.
 */
export function answerPieces(answer: string): AnswerPiece[] {
  const pieces: AnswerPiece[] = [];
  let at = 0;
  for (const match of answer.matchAll(CITATION_BRACKET)) {
    const index = match.index ?? 0;
    if (index > at) pieces.push({ text: answer.slice(at, index) });
    for (const id of (match[1] ?? "").split(/[,;]/).map((part) => part.trim())) {
      pieces.push(id.startsWith("C:") ? { report: id.slice(2) } : { cite: Number(id) });
    }
    at = index + match[0].length;
  }
  if (at < answer.length) pieces.push({ text: answer.slice(at) });
  return pieces;
}
