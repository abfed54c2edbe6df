import type { KgragServices } from "../services.js";
import { FixedIdSet } from "../storage/vectors/vector-math.js";
import { BoundedMemo } from "../util/bounded-memo.js";
import { countTokens, tokenBound } from "../util/tokens.js";
import { cleanCitations, readableCitations, stripLocalCitations } from "./citations.js";
import type { GlobalCommunityRef, GlobalSearchOptions, GlobalSearchResult } from "./global-search.js";
import type { ReportedCommunity } from "./select-reports.js";
import { questionWords, reportSharesAWord } from "./shared-words.js";

const DEFAULT_OFFLINE_REPORTS = 5;

/**
 * Global answers without an LLM: reports ranked by embedding similarity to the question, and their
 * summaries quoted as an extractive answer within the batch budget. Ties (all zero when a generic
 * question like "main themes?" shares no words with the reports) go to higher rating, then size.
 * With the lexical hashing embedder, reports that share a content word with the question go
 * before those that share none (see rankBySimilarity).
 */
export async function offlineGlobalSearch(
  services: KgragServices,
  question: string,
  reports: ReportedCommunity[],
  options: GlobalSearchOptions,
): Promise<GlobalSearchResult> {
  const { config } = services;
  const ranked = await rankBySimilarity(services, question, reports, options.questionVector);
  const wanted = options.offlineReports ?? DEFAULT_OFFLINE_REPORTS;
  const budget = config.query.globalBatchTokens;
  // The byte bound is exact enough whenever it skips nothing; only then is the tokenizer spared.
  const bounded = reportsWithin(ranked(), wanted, budget, tokenBound);
  const chosen = bounded.skipped
    ? reportsWithin(ranked(), wanted, budget, (text) => countTokens(text, config.chunking.encoding)).chosen
    : bounded.chosen;
  // Quoted outside their reports, summaries keep only citations of reports this answer lists.
  const shown = new Set(chosen.map((ref) => ref.id));
  const quoted = chosen.map((ref) => ({ ...ref, summary: quotedSummary(ref.summary, shown) }));
  const answer = [
    "Extractive answer (offline, no LLM): summaries of the community reports closest to the question.",
    "",
    ...quoted.map(answerLine),
  ].join("\n");
  return {
    answer,
    method: "extractive",
    communities: quoted,
    points: quoted.map((ref) => ({
      description: `${ref.summary} [C:${ref.id}]`,
      score: Math.round(Math.max(0, ref.score) * 100),
      communityIds: [ref.id],
    })),
  };
}

/** The first `wanted` reports, best first, whose answer lines fit in `budget` tokens as `measure` counts them. */
function reportsWithin(
  ranked: Iterable<GlobalCommunityRef>,
  wanted: number,
  budget: number,
  measure: (text: string) => number,
): { chosen: GlobalCommunityRef[]; skipped: boolean } {
  const chosen: GlobalCommunityRef[] = [];
  let used = 0;
  let skipped = false;
  for (const ref of ranked) {
    if (chosen.length >= wanted) break;
    const cost = measure(answerLine(ref));
    if (used + cost > budget) {
      skipped = true;
      continue;
    }
    chosen.push(ref);
    used += cost;
  }
  return { chosen, skipped };
}

function answerLine(ref: GlobalCommunityRef): string {
  return `- **${ref.title}** [C:${ref.id}]: ${oneLineSummary(ref.summary)}`;
}

/**
 * Summaries on one line, by summary text: every query measures the lines of the same cached
 * reports, and this regular-expression work was about 1 % of a mix query. Keyed by text, it cannot
 * go stale.
 */
const oneLineSummaries = new BoundedMemo<string, string>(4_096);

function oneLineSummary(summary: string): string {
  return oneLineSummaries.get(summary, () => stripLocalCitations(summary).replace(/\s+/g, " ").trim());
}

/**
 * Summaries as quoted, by text, for the summaries that cite no other report (nearly all): only a
 * [C:<id>] depends on which reports the answer shows, so theirs is the same in every answer, and
 * cleaning citations was about 1 % of a mix query. null marks a summary that cites a report.
 */
const reportFreeSummaries = new BoundedMemo<string, string | null>(4_096);

function quotedSummary(summary: string, shown: ReadonlySet<string>): string {
  const reportFree = reportFreeSummaries.get(summary, () => {
    // With no report shown, every [C:<id>] the summary holds is reported as unknown.
    const cleaned = cleanCitations(summary, NO_REPORTS);
    return cleaned.unknownReports.length === 0 ? cleaned.text.trim() : null;
  });
  return reportFree ?? readableCitations(summary, shown).trim();
}

const NO_REPORTS: ReadonlySet<string> = new Set();

/** Reports the vector search ranks; the caller takes a handful, so more would only cost time. */
const SIMILAR_REPORTS = 64;

/**
 * Reports best first: the vector search's hits by similarity, then the reports it did not reach
 * (no more similar than its last hit); ties, and questions that share no words with any report
 * ("main themes?"), go to higher rating and then larger size. Lazy, since the caller stops after a
 * few: the reports beyond the hits are sorted only if it gets there. Each call of the returned
 * function walks the ranking afresh.
 *
 * The hashing embedder's similarity is lexical: an English question meets a Chinese report on the
 * English words of the report's template ("A community of 11 entities centred on 澄州...") and on
 * hash collisions, and could rank it first. So with it, the hits that share a content word with
 * the question go first; a semantic embedder's similarity across languages is kept as it is.
 */
async function rankBySimilarity(
  services: KgragServices,
  question: string,
  reports: ReportedCommunity[],
  questionVector: number[] | undefined,
): Promise<() => Iterable<GlobalCommunityRef>> {
  const vector = questionVector?.length ? questionVector : (await services.embedder.embed([question]))[0];
  const allow = reportIndex(reports).ids;
  const limit = Math.min(reports.length, SIMILAR_REPORTS);
  const hits = vector ? await services.store.searchVectors("communities", vector, limit, allow) : [];
  const similarity = new Map(hits.map((hit) => [hit.id, hit.score]));
  const words = services.embedder.kind === "hashing" ? questionWords(question) : undefined;
  return () => orderedReports(reports, similarity, words);
}

interface ReportIndex {
  /** Fixed, so that vector search answers it from a copy of the reports' rows (see FixedIdSet). */
  ids: FixedIdSet;
  /** Id -> position in the list. */
  positions: Map<string, number>;
}

/** The ids of a report list and their positions, built once per list: the query side passes the same cached list every query. */
const indexOfReports = new WeakMap<ReportedCommunity[], ReportIndex>();

function reportIndex(reports: ReportedCommunity[]): ReportIndex {
  let index = indexOfReports.get(reports);
  if (!index) {
    index = {
      ids: new FixedIdSet(reports.map((c) => c.id)),
      positions: new Map(reports.map((c, i) => [c.id, i])),
    };
    indexOfReports.set(reports, index);
  }
  return index;
}

/**
 * `words`, when given, puts the hits that share one of them first. Only the hits are tested (at
 * most SIMILAR_REPORTS reports per query, each report's words worked out once), and only as far
 * as the caller reads: the reports beyond them keep their order by rating and size.
 */
function* orderedReports(
  reports: ReportedCommunity[],
  similarity: Map<string, number>,
  words: ReadonlySet<string> | undefined,
): Generator<GlobalCommunityRef> {
  const score = (c: ReportedCommunity) => similarity.get(c.id) ?? 0;
  const priority = (a: ReportedCommunity, b: ReportedCommunity) =>
    score(b) - score(a) || b.report.rating - a.report.rating || b.entityKeys.length - a.entityKeys.length;
  const toRef = (c: ReportedCommunity): GlobalCommunityRef => ({
    id: c.id,
    level: c.level,
    title: c.report.title,
    summary: c.report.summary,
    score: score(c),
  });
  // The hits' reports in list order, as filtering the whole list would give them, without the pass over it.
  const { positions } = reportIndex(reports);
  const hitPositions = Int32Array.from(similarity.keys(), (id) => positions.get(id) ?? -1).sort();
  const hits = Array.from(
    hitPositions.filter((at) => at >= 0),
    (at) => {
      const report = reports[at] as ReportedCommunity;
      return { report, score: score(report) };
    },
  );
  hits.sort(
    (a, b) =>
      b.score - a.score ||
      b.report.report.rating - a.report.report.rating ||
      b.report.entityKeys.length - a.report.entityKeys.length,
  );
  // The hits sharing a word first, each group in that order (a stable partition, the same order as
  // sorting on the test first): tested as the caller asks, which stops after a handful of the 64.
  const sharingNone: ReportedCommunity[] = [];
  for (const { report } of hits) {
    if (!words || reportSharesAWord(words, report)) yield toRef(report);
    else sharingNone.push(report);
  }
  yield* sharingNone.map(toRef);
  yield* reports
    .filter((c) => !similarity.has(c.id))
    .sort(priority)
    .map(toRef);
}
