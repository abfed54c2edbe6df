/**
 * Citation markers used in community reports: [E:3] entity, [R:7] relationship (ids local to the
 * report's context) and [C:<community id>] for whole reports in global answers.
 */
const LOCAL_CITATION = /\s*\[(?:[ER]:\d+)(?:\s*[,;]\s*(?:[ER]:)?\d+)*\]/g;
const CITED_ID = /\b([ERC]):([A-Za-z0-9-]+)/g;
const BRACKETED = /\[([^\]]+)\]/g;

/** Removes [E:n]/[R:n] markers: they mean nothing outside the context they were written from. */
export function stripLocalCitations(text: string): string {
  return text.replace(LOCAL_CITATION, "");
}

/** Ids cited inside square brackets, e.g. "[E:1, R:4]" gives E:1 and R:4, in first-seen order. */
export function citedIds(text: string): string[] {
  const ids = new Set<string>();
  for (const [, inside] of text.matchAll(BRACKETED)) {
    for (const [, kind, id] of (inside as string).matchAll(CITED_ID)) ids.add(`${kind}:${id}`);
  }
  return [...ids];
}

/** Community ids cited as [C:<id>], restricted to the ones that exist. */
export function citedCommunityIds(text: string, known: ReadonlySet<string>): string[] {
  return citedIds(text)
    .filter((id) => id.startsWith("C:"))
    .map((id) => id.slice(2))
    .filter((id) => known.has(id));
}
