/**
 * Community reports cite what they rest on in brackets: [E:3] an entity, [R:7] a relationship
 * (ids local to the report), [C:c1-ab12] another report; several share one bracket ([E:1, R:2],
 * [E:1, 4]: a bare id after E or R is of that kind). Their references list repeats each id with
 * its label ("- [E:3] Alice"). A plain module: the unit tests read it without the DOM.
 */

/** What one citation id stands for (the community API's `citations` values). */
export type ReportCitation =
  | { kind: "entity"; name: string }
  | { kind: "relationship"; source: string; target: string }
  | { kind: "community"; id: string; title: string };

/** One cited id: what it stands for, or the bare id when nothing says (shown as plain text). */
export type ReportRef = ReportCitation | { kind: "unknown"; id: string };

/**
 * A piece of report text: prose; the ids of one bracket (`refs`, shown together); or the one id a
 * references-list line stands for (`ref`, its label left out: the reference shows it).
 */
export type ReportPiece = { text: string } | { refs: ReportRef[] } | { ref: ReportRef };

const ID = "[ERC]:[A-Za-z0-9-]+";
const MORE = String.raw`(?:\s*[,;]\s*(?:[ERC]:)?[A-Za-z0-9-]+)*`;
/** A references-list line ("- [E:3] Alice", groups: id, label), or a bracket of ids (group: its inside). */
const CITATION = new RegExp(String.raw`^- \[(${ID})\]( [^\n]*)$|\[\s*(${ID}${MORE})\s*\]`, "gm");

/** Splits report text into prose and the citations it holds, each resolved by `citations`. */
export function reportPieces(
  text: string,
  citations: Readonly<Record<string, ReportCitation>>,
): ReportPiece[] {
  const pieces: ReportPiece[] = [];
  const resolve = (id: string): ReportRef => citations[id] ?? { kind: "unknown", id };
  let at = 0;
  for (const match of text.matchAll(CITATION)) {
    const [whole, listed, label = "", inside = ""] = match;
    const index = match.index ?? 0;
    if (index > at) pieces.push({ text: text.slice(at, index) });
    if (listed === undefined) pieces.push({ refs: bracketIds(inside).map(resolve) });
    else if (citations[listed]) pieces.push({ text: "- " }, { ref: resolve(listed) });
    else pieces.push({ text: "- " }, { ref: resolve(listed) }, { text: label });
    at = index + whole.length;
  }
  if (at < text.length) pieces.push({ text: text.slice(at) });
  return pieces;
}

/** "E:1, 4; R:2" -> E:1, E:4, R:2: a bare id shares the kind of the id before it. */
function bracketIds(inside: string): string[] {
  let kind = "";
  return inside.split(/[,;]/).map((part) => {
    const id = part.trim();
    const colon = id.indexOf(":");
    if (colon > 0) {
      kind = id.slice(0, colon);
      return id;
    }
    return kind === "E" || kind === "R" ? `${kind}:${id}` : id;
  });
}

/** The citations of the reports a query's context holds: each [C:id] of their text names one. */
export function communityCitations(
  communities: readonly { id: string; title: string }[],
): Record<string, ReportCitation> {
  return Object.fromEntries(
    communities.map((c) => [`C:${c.id}`, { kind: "community" as const, id: c.id, title: c.title }]),
  );
}

/** How a reference reads: a name, "A — B", a report's title, or the bare id. */
export function refLabel(ref: ReportRef): string {
  switch (ref.kind) {
    case "entity":
      return ref.name;
    case "relationship":
      return `${ref.source} — ${ref.target}`;
    case "community":
      return ref.title;
    default:
      return ref.id;
  }
}
