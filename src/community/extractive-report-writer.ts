import { DESCRIPTION_SEPARATOR } from "../merge/keys.js";
import { stripMarkup } from "../nlp/markdown-prose.js";
import type { CommunityFinding, CommunityReport } from "../types.js";
import { toCommunityReport } from "./render-report.js";
import type { ContextRelationship, ReportContext } from "./report-context.js";
import { type ReportPhrases, reportLanguage, reportPhrases } from "./report-language.js";
import type { ReportFields } from "./report-schema.js";
import type { ReportWriter } from "./report-writer.js";

const TITLE_ENTITIES = 3;
const SUMMARY_RELATIONSHIPS = 3;
const MAX_FINDINGS = 8;
const MAX_SENTENCE_CHARS = 300;
const MAX_EXPLANATION_CHARS = 700;
const MAX_CITED = 5;

/**
 * Offline reports, built from the graph alone: the title names the most connected entities, the
 * summary and findings quote the strongest relationships' descriptions. No model judges anything,
 * so the rating is a plain size measure and the report says it is extractive.
 */
export class ExtractiveReportWriter implements ReportWriter {
  readonly kind = "extractive" as const;

  async write(context: ReportContext): Promise<CommunityReport> {
    return extractiveReport(context);
  }
}

export function extractiveReport(context: ReportContext): CommunityReport {
  const language = reportLanguage(context);
  return toCommunityReport(extractiveFields(context, language), "extractive", context, language);
}

/** `language`: of the fixed phrases around the quoted sentences (the community's own, by default). */
export function extractiveFields(context: ReportContext, language = reportLanguage(context)): ReportFields {
  const phrases = reportPhrases(language);
  const names = new Map(context.entities.map((e) => [e.key, e.name]));
  const strongest = [...context.relationships].sort(
    (a, b) => b.weight - a.weight || b.combinedDegree - a.combinedDegree || (a.id < b.id ? -1 : 1),
  );
  const central = context.members.slice(0, TITLE_ENTITIES).map((m) => m.name);
  const size = context.members.length;
  const rating = Math.min(10, Math.round(2 * Math.log2(1 + size)));
  const findings = distinctQuotes(strongest, (rel) => excerpt(rel.description)).map(
    ({ text, rels }): CommunityFinding => ({
      summary: pairName(rels[0] as ContextRelationship, names, phrases),
      explanation: `${text || phrases.related} ${cite(rels)}`,
    }),
  );
  return {
    title: central.length ? phrases.joinNames(central) : phrases.untitled(context.communityId),
    summary: summaryOf(context, central, strongest, phrases),
    rating,
    ratingExplanation: phrases.ratingExplanation(size),
    findings: [
      ...findings,
      ...context.childReports.map((child) => ({
        summary: child.report.title,
        explanation: `${firstSentence(child.report.summary)} [C:${child.id}]`,
      })),
    ].slice(0, MAX_FINDINGS),
  };
}

function summaryOf(
  context: ReportContext,
  central: string[],
  strongest: ContextRelationship[],
  phrases: ReportPhrases,
): string {
  const opening = phrases.opening(context.members.length, central);
  const quoted = distinctQuotes(strongest, (rel) => firstSentence(rel.description))
    .filter((quote) => quote.text)
    .slice(0, SUMMARY_RELATIONSHIPS)
    .map(({ text, rels }) => `${text} ${cite(rels)}`);
  if (quoted.length === 0 && context.childReports.length) {
    quoted.push(
      ...context.childReports.slice(0, SUMMARY_RELATIONSHIPS).map((c) => `${c.report.title} [C:${c.id}]`),
    );
  }
  return [opening, ...quoted].join(" ");
}

/**
 * Relationships grouped by the text quoted from them, in order of first appearance. Co-occurrence
 * edges from one sentence all carry that sentence; it is quoted once, citing every edge.
 */
function distinctQuotes(
  rels: ContextRelationship[],
  textOf: (rel: ContextRelationship) => string,
): { text: string; rels: ContextRelationship[] }[] {
  const groups = new Map<string, ContextRelationship[]>();
  for (const rel of rels) {
    const text = textOf(rel);
    const group = groups.get(text);
    if (group) group.push(rel);
    else groups.set(text, [rel]);
  }
  return [...groups].map(([text, grouped]) => ({ text, rels: grouped }));
}

/** At most five ids in one bracket, as the LLM prompt asks too. */
function cite(rels: ContextRelationship[]): string {
  return `[${rels
    .slice(0, MAX_CITED)
    .map((r) => r.id)
    .join(", ")}]`;
}

/** A description as readable prose, cut at a sentence end near the length limit. */
function excerpt(description: string): string {
  const fragments = description.split(DESCRIPTION_SEPARATOR).map(stripMarkup);
  const text = fragments.join(" ").replace(/\s+/g, " ").trim();
  if (text.length <= MAX_EXPLANATION_CHARS) return text;
  const cut = text.slice(0, MAX_EXPLANATION_CHARS);
  const end = Math.max(cut.lastIndexOf(". "), cut.lastIndexOf("。"));
  return end > MAX_EXPLANATION_CHARS / 3 ? cut.slice(0, end + 1) : `${cut.slice(0, -1)}…`;
}

function pairName(rel: ContextRelationship, names: Map<string, string>, phrases: ReportPhrases): string {
  return phrases.pair(names.get(rel.sourceKey) ?? rel.sourceKey, names.get(rel.targetKey) ?? rel.targetKey);
}

/** First sentence of the first description fragment (Latin or CJK punctuation), capped in length. */
function firstSentence(text: string): string {
  const fragment = stripMarkup(text.split(DESCRIPTION_SEPARATOR)[0] ?? "")
    .replace(/\s+/g, " ")
    .trim();
  const sentence = fragment.split(/(?<=[.!?])\s+|(?<=[。！？])/u)[0] ?? "";
  return sentence.length > MAX_SENTENCE_CHARS ? `${sentence.slice(0, MAX_SENTENCE_CHARS - 1)}…` : sentence;
}
