/**
 * Citation markers used in community reports: [E:3] entity, [R:7] relationship (ids local to the
 * report's context) and [C:<community id>] for whole reports in global answers.
 */
const LOCAL_CITATION = /\s*\[(?:[ER]:\d+)(?:\s*[,;]\s*(?:[ER]:)?\d+)*\]/g;
const CITED_ID = /\b([ERC]):([A-Za-z0-9-]+)/g;
const BRACKETED = /\[([^\]]+)\]/g;
/** A bracket holding only citation ids, e.g. " [C:c1-0a, C:c2-1b]", " [E:1, R:4, 5]" or " [2, 42]". */
const CITATION_BRACKET =
  /(\s*)\[\s*((?:[ERC]:[A-Za-z0-9-]+|\d+)(?:\s*[,;]\s*(?:[ERC]:)?[A-Za-z0-9-]+)*)\s*\]/g;

/** Removes [E:n]/[R:n] markers: they mean nothing outside the context they were written from. */
export function stripLocalCitations(text: string): string {
  return text.replace(LOCAL_CITATION, "");
}

/** Text cleaned of citations its reader cannot look up, and the passage and report ids that were cited anyway. */
export interface CleanedCitations {
  text: string;
  /** Passage numbers [n] cited that are not among `passages`, in first-seen order. */
  unknownPassages: number[];
  /** Report ids [C:<id>] cited that are not in `shown`, in first-seen order. */
  unknownReports: string[];
}

/**
 * Report or answer text as a reader sees it outside its context: [E:n]/[R:n] are removed, a
 * [C:<id>] is kept only for the communities in `shown` (the ones the reader can look up, e.g. the
 * query context's communities) and, when `passages` is given (an answer's references), a passage
 * number [n] only for those passages; a bracket left with no id goes whole, with the space before it.
 */
export function readableCitations(
  text: string,
  shown: ReadonlySet<string>,
  passages?: ReadonlySet<number>,
): string {
  return cleanCitations(text, shown, passages).text;
}

/**
 * readableCitations, also telling which removed ids were passages or reports the text had no
 * business citing (an answer citing a source it was not given). [E:n]/[R:n] are not among them:
 * they are a report's own, removed by design.
 */
export function cleanCitations(
  text: string,
  shown: ReadonlySet<string>,
  passages?: ReadonlySet<number>,
): CleanedCitations {
  const unknownPassages = new Set<number>();
  const unknownReports = new Set<string>();
  const cleaned = text.replace(CITATION_BRACKET, (bracket: string, space: string, inside: string) => {
    const ids = bracketIds(inside);
    const bare = ids.every((id) => !id.includes(":"));
    // "[2, abc]" is text, not a citation.
    if (bare && !ids.every(isPassage)) return bracket;
    const kept = ids.filter((id) => {
      if (isPassage(id)) {
        const known = !passages || passages.has(Number(id));
        if (!known) unknownPassages.add(Number(id));
        return known;
      }
      if (!id.startsWith("C:")) return false;
      const known = shown.has(id.slice(2));
      if (!known) unknownReports.add(id.slice(2));
      return known;
    });
    if (bare && kept.length === ids.length) return bracket;
    return kept.length ? `${space}[${kept.join(", ")}]` : "";
  });
  return { text: cleaned, unknownPassages: [...unknownPassages], unknownReports: [...unknownReports] };
}

/**
 * "E:1, 4; C:c0-a, 3" -> E:1, E:4, C:c0-a, 3. A bare id after E or R shares its kind (reports
 * write "[E:1, 4]"); after a C id it is an answer's passage number ("[C:c0-a, 3]") and stays bare.
 */
function bracketIds(inside: string): string[] {
  let kind = "";
  return inside.split(/[,;]/).map((part) => {
    const [first = "", second] = part.trim().split(":");
    if (second !== undefined) {
      kind = first;
      return `${first}:${second}`;
    }
    return kind === "E" || kind === "R" ? `${kind}:${first}` : first;
  });
}

function isPassage(id: string): boolean {
  return /^\d+$/.test(id);
}

/** Ids cited inside square brackets, e.g. "[E:1, R:4]" gives E:1 and R:4, in first-seen order. */
export function citedIds(text: string): string[] {
  const ids = new Set<string>();
  for (const [, inside] of text.matchAll(BRACKETED)) {
    for (const [, kind, id] of (inside as string).matchAll(CITED_ID)) ids.add(`${kind}:${id}`);
  }
  return [...ids];
}

/** Passage numbers cited in any citation bracket: [3], [1, 4], [C:c0-a, 2] (not an [E:1, 4]'s 4). */
export function citedPassageNumbers(text: string): Set<number> {
  const numbers = new Set<number>();
  for (const [, inside] of text.matchAll(BRACKETED)) {
    for (const id of bracketIds(inside as string)) if (isPassage(id)) numbers.add(Number(id));
  }
  return numbers;
}

/** Community ids cited as [C:<id>], restricted to the ones that exist. */
export function citedCommunityIds(text: string, known: ReadonlySet<string>): string[] {
  return citedIds(text)
    .filter((id) => id.startsWith("C:"))
    .map((id) => id.slice(2))
    .filter((id) => known.has(id));
}

/**
 * Each citation bracket of `text` ([E:1, R:4], [C:c0-a]) as `render` writes its ids, e.g. as the
 * names they stand for; a bracket `render` leaves empty goes whole, with the space before it.
 */
export function rewriteCitationBrackets(text: string, render: (ids: string[]) => string[]): string {
  return text.replace(CITATION_BRACKET, (_, space: string, inside: string) => {
    const shown = render(bracketIds(inside));
    return shown.length ? `${space}[${shown.join("; ")}]` : "";
  });
}
