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

/** The list under an answer: the sources it cites, or the passages retrieved when it cites none. */
export interface AnswerSources<R> {
  heading: "Sources" | "Retrieved passages";
  /** Why passages are listed that the answer does not cite. */
  note?: string;
  references: R[];
  /** Community reports the answer cites ([C:id]), in first-cited order. */
  reports: string[];
}

/**
 * As the CLI lists them (citedSources): the passages and reports the answer cites, numbered as
 * cited. An answer that cites no passage, or no answer at all (context only), lists the passages
 * retrieved under another heading, once the answer is finished (a streaming one may cite them yet).
 */
export function answerSources<R extends { n: number }>(
  answer: string,
  references: readonly R[],
  finished: boolean,
): AnswerSources<R> | undefined {
  const pieces = answerPieces(answer);
  const passages = new Set(pieces.flatMap((piece) => ("cite" in piece ? [piece.cite] : [])));
  const reports = [...new Set(pieces.flatMap((piece) => ("report" in piece ? [piece.report] : [])))];
  const cited = references.filter((ref) => passages.has(ref.n));
  if (cited.length > 0 || reports.length > 0) return { heading: "Sources", references: cited, reports };
  if (!finished || references.length === 0) return undefined;
  const note = answer.trim() ? "the answer cites none of them" : "context only: no answer was written";
  return { heading: "Retrieved passages", note, references: [...references], reports: [] };
}

/** A reference as a reader looks it up: its document's title, and a PDF passage's pages. */
export function referenceLabel(ref: { title: string; page?: number; pageEnd?: number }): string {
  if (ref.page === undefined) return ref.title;
  const pages =
    ref.pageEnd && ref.pageEnd !== ref.page ? `pages ${ref.page}-${ref.pageEnd}` : `page ${ref.page}`;
  return `${ref.title}, ${pages}`;
}
