import { rewriteCitationBrackets } from "./citations.js";
import { PAIR_SEPARATOR, referenceLabels } from "./render-report.js";

/** What one citation id of a report stands for, as a reader can look it up. */
export type ReportCitation =
  | { kind: "entity"; name: string }
  | { kind: "relationship"; source: string; target: string }
  | { kind: "community"; id: string; title: string };

/**
 * The ids a report cites ("E:3", "R:7", "C:c1-ab12") with what each stands for, read from the
 * report's references list. `members` are the community's entity names: a relationship's label is
 * split where both sides name one (a name may itself hold the separator); ids the list does not
 * label are left out.
 */
export function reportCitations(
  markdown: string,
  members: ReadonlySet<string>,
): Record<string, ReportCitation> {
  const citations: Record<string, ReportCitation> = {};
  for (const [id, label] of referenceLabels(markdown)) {
    const kind = id.slice(0, 1);
    if (kind === "E") citations[id] = { kind: "entity", name: label };
    else if (kind === "C") citations[id] = { kind: "community", id: id.slice(2), title: label };
    else {
      const pair = splitPair(label, members);
      if (pair) citations[id] = { kind: "relationship", ...pair };
    }
  }
  return citations;
}

/** "A — B" into its two names: at the separator both sides of which are members, else the first. */
function splitPair(
  label: string,
  members: ReadonlySet<string>,
): { source: string; target: string } | undefined {
  const splits: { source: string; target: string }[] = [];
  for (let at = label.indexOf(PAIR_SEPARATOR); at >= 0; at = label.indexOf(PAIR_SEPARATOR, at + 1)) {
    splits.push({ source: label.slice(0, at), target: label.slice(at + PAIR_SEPARATOR.length) });
  }
  return splits.find((s) => members.has(s.source) && members.has(s.target)) ?? splits[0];
}

/**
 * Report prose (its summary, a finding) with its [E:n]/[R:n]/[C:id] markers as the names they
 * stand for ("[Alice; Alice — Acme]"), for readers without the report's reference list (an MCP
 * agent); ids the list does not label are dropped. `markdown` is the report's, which holds the list.
 */
export function withNamedCitations(text: string, markdown: string): string {
  const citations = reportCitations(markdown, new Set());
  return rewriteCitationBrackets(text, (ids) => ids.flatMap((id) => citationName(citations[id])));
}

function citationName(citation: ReportCitation | undefined): string[] {
  if (!citation) return [];
  if (citation.kind === "entity") return [citation.name];
  if (citation.kind === "community") return [citation.title];
  return [`${citation.source}${PAIR_SEPARATOR}${citation.target}`];
}
