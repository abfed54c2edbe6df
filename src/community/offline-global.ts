import type { KgragServices } from "../services.js";
import { countTokens } from "../util/tokens.js";
import { readableCitations, stripLocalCitations } from "./citations.js";
import type { GlobalCommunityRef, GlobalSearchOptions, GlobalSearchResult } from "./global-search.js";
import type { ReportedCommunity } from "./select-reports.js";

const DEFAULT_OFFLINE_REPORTS = 5;

/**
 * Global answers without an LLM: reports ranked by embedding similarity to the question, and their
 * summaries quoted as an extractive answer within the batch budget. Ties (all zero when a generic
 * question like "main themes?" shares no words with the reports) go to higher rating, then size.
 */
export async function offlineGlobalSearch(
  services: KgragServices,
  question: string,
  reports: ReportedCommunity[],
  options: GlobalSearchOptions,
): Promise<GlobalSearchResult> {
  const { config } = services;
  const ranked = await rankBySimilarity(services, question, reports);
  const wanted = options.offlineReports ?? DEFAULT_OFFLINE_REPORTS;
  const chosen: GlobalCommunityRef[] = [];
  let used = 0;
  for (const ref of ranked) {
    if (chosen.length >= wanted) break;
    const cost = countTokens(answerLine(ref), config.chunking.encoding);
    if (used + cost > config.query.globalBatchTokens) continue;
    chosen.push(ref);
    used += cost;
  }
  // Quoted outside their reports, summaries keep only citations of reports this answer lists.
  const shown = new Set(chosen.map((ref) => ref.id));
  const quoted = chosen.map((ref) => ({ ...ref, summary: readableCitations(ref.summary, shown).trim() }));
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

function answerLine(ref: GlobalCommunityRef): string {
  return `- **${ref.title}** [C:${ref.id}]: ${stripLocalCitations(ref.summary).replace(/\s+/g, " ").trim()}`;
}

async function rankBySimilarity(
  services: KgragServices,
  question: string,
  reports: ReportedCommunity[],
): Promise<GlobalCommunityRef[]> {
  const [vector] = await services.embedder.embed([question]);
  const allow = new Set(reports.map((c) => c.id));
  const hits = vector ? await services.store.searchVectors("communities", vector, reports.length, allow) : [];
  const similarity = new Map(hits.map((hit) => [hit.id, hit.score]));
  return reports
    .map((c) => ({
      ref: {
        id: c.id,
        level: c.level,
        title: c.report.title,
        summary: c.report.summary,
        score: similarity.get(c.id) ?? 0,
      },
      rating: c.report.rating,
      size: c.entityKeys.length,
    }))
    .sort((a, b) => b.ref.score - a.ref.score || b.rating - a.rating || b.size - a.size)
    .map(({ ref }) => ref);
}
