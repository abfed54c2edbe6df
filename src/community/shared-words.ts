import { contentTerms } from "../query/answer/terms.js";
import { stripLocalCitations } from "./citations.js";
import type { ReportedCommunity } from "./select-reports.js";

/** The content words of a question (stems and forms, no function words), to match reports on. */
export function questionWords(question: string): ReadonlySet<string> {
  return new Set(contentTerms(question));
}

/**
 * Whether a text shares a content word with the question. On a report's title and summary it is
 * the test the offline answer applies before it quotes reports from the context.
 */
export function sharesAWord(words: ReadonlySet<string>, text: string): boolean {
  if (words.size === 0) return false;
  return contentTerms(stripLocalCitations(text)).some((term) => words.has(term));
}

/** Each report's content words, worked out once per report object (the query side caches its list). */
const reportWords = new WeakMap<ReportedCommunity, ReadonlySet<string>>();

/** Whether the whole report (title, summary and findings, as embedded) shares a content word with the question. */
export function reportSharesAWord(words: ReadonlySet<string>, report: ReportedCommunity): boolean {
  if (words.size === 0) return false;
  let own = reportWords.get(report);
  if (!own) {
    own = new Set(contentTerms(stripLocalCitations(report.report.markdown)));
    reportWords.set(report, own);
  }
  for (const word of words) if (own.has(word)) return true;
  return false;
}
