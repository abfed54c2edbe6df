import { DESCRIPTION_SEPARATOR } from "../merge/keys.js";
import { stripMarkup } from "../nlp/markdown-prose.js";
import { opensWithReference } from "../nlp/reference-opening.js";
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
  const findings = distinctQuotes(strongest, byDescription(excerpt)).map(
    ({ text, rels }): CommunityFinding => ({
      summary: pairName(rels[0] as ContextRelationship, names, phrases),
      explanation: `${text || phrases.related} ${cite(rels)}`,
    }),
  );
  return {
    title: central.length ? phrases.joinNames(central) : phrases.untitled(context.communityId),
    summary: summaryOf(context, central, strongest, names, phrases),
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
  names: Map<string, string>,
  phrases: ReportPhrases,
): string {
  const opening = phrases.opening(context.members.length, central);
  const sentencesOfDescription = byDescription(descriptionSentences);
  const quoted = distinctQuotes(strongest, (rel) => quotedSentence(rel, sentencesOfDescription(rel), names))
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

/**
 * A description as readable prose, cut at a sentence end near the length limit. A fragment's
 * opening sentences that start with a pronoun ("He founded...", "它...") are left out: the fragment
 * came from another passage, so the sentence before this one is not its subject. When every
 * fragment opens so, the text is kept whole, as the only account there is.
 */
function excerpt(description: string): string {
  const fragments = description.split(DESCRIPTION_SEPARATOR).map(stripMarkup);
  const named = fragments.map(withoutLeadingReferences).filter(Boolean);
  const text = (named.length > 0 ? named : fragments).join(" ").replace(/\s+/g, " ").trim();
  if (text.length <= MAX_EXPLANATION_CHARS) return text;
  const cut = text.slice(0, MAX_EXPLANATION_CHARS);
  const end = Math.max(cut.lastIndexOf(". "), cut.lastIndexOf("。"));
  return end > MAX_EXPLANATION_CHARS / 3 ? cut.slice(0, end + 1) : `${cut.slice(0, -1)}…`;
}

/** The fragment from its first sentence that does not open with a pronoun; empty when none. */
function withoutLeadingReferences(fragment: string): string {
  const sentences = sentencesOf(fragment);
  const first = sentences.findIndex((sentence) => !opensWithReference(sentence));
  if (first <= 0) return first === 0 ? fragment : "";
  // Cut the prose itself, not re-joined sentences: CJK sentences have no space between them.
  const prose = readableProse(fragment);
  let from = 0;
  for (const sentence of sentences.slice(0, first)) from = prose.indexOf(sentence, from) + sentence.length;
  return prose.slice(from).trim();
}

function pairName(rel: ContextRelationship, names: Map<string, string>, phrases: ReportPhrases): string {
  return phrases.pair(names.get(rel.sourceKey) ?? rel.sourceKey, names.get(rel.targetKey) ?? rel.targetKey);
}

/** First sentence of the first description fragment (Latin or CJK punctuation), capped in length. */
function firstSentence(text: string): string {
  return capped(sentencesOf(text.split(DESCRIPTION_SEPARATOR)[0] ?? "")[0] ?? "");
}

/**
 * The sentence a summary quotes for a relationship: the first of its description, unless that one
 * opens with a pronoun ("He founded...", "他创立了..."), whose subject is lost out of its passage.
 * Then the first sentence naming one of the pair, else the first opening otherwise, else (nothing
 * else to say) the first after all.
 */
function quotedSentence(
  rel: ContextRelationship,
  sentences: readonly string[],
  names: Map<string, string>,
): string {
  const first = sentences[0] ?? "";
  if (!opensWithReference(first)) return capped(first);
  const pair = [rel.sourceKey, rel.targetKey].map((key) => (names.get(key) ?? key).toLowerCase());
  const namesThePair = (sentence: string) => pair.some((name) => sentence.toLowerCase().includes(name));
  const clear = sentences.filter((sentence) => !opensWithReference(sentence));
  return capped(clear.find(namesThePair) ?? clear[0] ?? first);
}

/** Every sentence of a description, fragment by fragment. */
function descriptionSentences(description: string): string[] {
  return description.split(DESCRIPTION_SEPARATOR).flatMap(sentencesOf);
}

/**
 * A function of a relationship's description, computed once per distinct description of one
 * report: the co-occurrence edges of one sentence all carry that sentence as their description.
 */
function byDescription<T>(of: (description: string) => T): (rel: ContextRelationship) => T {
  const memo = new Map<string, T>();
  return (rel) => {
    if (memo.has(rel.description)) return memo.get(rel.description) as T;
    const value = of(rel.description);
    memo.set(rel.description, value);
    return value;
  };
}

/** A description fragment's sentences (Latin or CJK punctuation), as readable prose. */
function sentencesOf(fragment: string): string[] {
  return readableProse(fragment)
    .split(/(?<=[.!?])\s+|(?<=[。！？])/u)
    .filter(Boolean);
}

function readableProse(fragment: string): string {
  return stripMarkup(fragment).replace(/\s+/g, " ").trim();
}

function capped(sentence: string): string {
  return sentence.length > MAX_SENTENCE_CHARS ? `${sentence.slice(0, MAX_SENTENCE_CHARS - 1)}…` : sentence;
}
