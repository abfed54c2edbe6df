export type AnswerPiece = { text: string } | { cite: number };

/** Splits an answer into text and [n] citations; `[1, 3]` yields two citations. */
export function answerPieces(answer: string): AnswerPiece[] {
  const pieces: AnswerPiece[] = [];
  const pattern = /\[(\d+(?:\s*,\s*\d+)*)\]/g;
  let at = 0;
  for (const match of answer.matchAll(pattern)) {
    const index = match.index ?? 0;
    if (index > at) pieces.push({ text: answer.slice(at, index) });
    for (const n of (match[1] ?? "").split(",")) pieces.push({ cite: Number(n.trim()) });
    at = index + match[0].length;
  }
  if (at < answer.length) pieces.push({ text: answer.slice(at) });
  return pieces;
}
