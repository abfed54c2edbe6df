import type { CommunityReport } from "../types.js";
import { citedIds } from "./citations.js";
import type { ReportContext } from "./report-context.js";
import { type ReportLanguage, reportPhrases } from "./report-language.js";
import type { ReportFields } from "./report-schema.js";

/**
 * Renders a report as markdown (what is embedded and shown). Entity and relationship ids only mean
 * something next to the context they came from, so the ids the report cites are listed at the end.
 */
export function renderReport(
  fields: ReportFields,
  method: CommunityReport["method"],
  context: ReportContext,
  language: ReportLanguage = "en",
): string {
  const phrases = reportPhrases(language);
  const lines = [`# ${fields.title}`, ""];
  if (method === "extractive") lines.push(phrases.extractiveNote, "");
  lines.push(fields.summary, "", phrases.rating(formatRating(fields.rating), fields.ratingExplanation));
  if (fields.findings.length) {
    lines.push("", phrases.findingsHeading);
    for (const finding of fields.findings) lines.push("", `### ${finding.summary}`, "", finding.explanation);
  }
  const references = referenceLines(fields, context);
  if (references.length) lines.push("", REFERENCES_HEADING, "", ...references);
  return `${lines.join("\n").trim()}\n`;
}

/** `language`: of the markdown's fixed lines (headings, rating, the extractive note). */
export function toCommunityReport(
  fields: ReportFields,
  method: CommunityReport["method"],
  context: ReportContext,
  language: ReportLanguage = "en",
): CommunityReport {
  return { ...fields, markdown: renderReport(fields, method, context, language), method };
}

function referenceLines(fields: ReportFields, context: ReportContext): string[] {
  const prose = [
    fields.summary,
    fields.ratingExplanation,
    ...fields.findings.flatMap((f) => [f.summary, f.explanation]),
  ];
  const labels = new Map<string, string>();
  const names = new Map(context.entities.map((e) => [e.key, e.name]));
  for (const e of context.entities) labels.set(e.id, e.name);
  for (const r of context.relationships) {
    labels.set(r.id, pairLabel(names.get(r.sourceKey) ?? r.sourceKey, names.get(r.targetKey) ?? r.targetKey));
  }
  for (const c of context.childReports) labels.set(`C:${c.id}`, c.report.title);
  return citedIds(prose.join("\n"))
    .filter((id) => labels.has(id))
    .map((id) => `- [${id}] ${labels.get(id)}`);
}

const REFERENCES_HEADING = "## References";
/** Between a relationship's two names in its label. */
export const PAIR_SEPARATOR = " — ";

function pairLabel(source: string, target: string): string {
  return `${source}${PAIR_SEPARATOR}${target}`;
}

/** A line of the references list as referenceLines writes it: "- [E:3] Alice". */
const REFERENCE_LINE = /^- \[([ERC]:[A-Za-z0-9-]+)\] (.+)$/;

/**
 * The labels a rendered report lists for the ids it cites (id -> label): an entity's name, a
 * relationship's "source — target", a child report's title. Reports keep no other trace of the
 * context their ids were given in.
 */
export function referenceLabels(markdown: string): Map<string, string> {
  const labels = new Map<string, string>();
  const start = markdown.lastIndexOf(`\n${REFERENCES_HEADING}\n`);
  if (start < 0) return labels;
  for (const line of markdown.slice(start).split("\n")) {
    const [, id, label] = REFERENCE_LINE.exec(line.trim()) ?? [];
    if (id && label) labels.set(id, label.trim());
  }
  return labels;
}

function formatRating(rating: number): string {
  return Number.isInteger(rating) ? String(rating) : rating.toFixed(1);
}
