import { citedCommunityIds, readableCitations } from "../../community/citations.js";
import type { Retrieval } from "../modes/retrieval.js";
import type { ContextCommunity } from "../result.js";
import { communityLine } from "./context-format.js";
import { fitting, lineTokens, type TokenMeasure } from "./line-tokens.js";

export interface FittedCommunities {
  communities: ContextCommunity[];
  /** The model's analysis of the reports, when one was written and fits. */
  analysis: string | null;
  tokens: number;
}

/**
 * The community reports, then their analysis, that fit in `budget` tokens. Reports the analysis
 * cites go first, so its citations point at reports in the context. Afterwards every [C:<id>]
 * left in a summary or in the analysis names a report of the context (the others are dropped):
 * whatever cites a report, the reader finds it among the context's communities.
 */
export function fitCommunities(
  retrieval: Pick<Retrieval, "communities" | "communityAnalysis">,
  budget: number,
  measure: TokenMeasure = lineTokens,
): FittedCommunities {
  const analysisText = retrieval.communityAnalysis;
  const ranked = citedFirst(retrieval.communities, analysisText ?? "");
  const reports = fitting(ranked, communityLine, budget, measure);
  const analysis = fitting(analysisText ? [analysisText] : [], (a) => a, budget - reports.tokens, measure);
  const shown = new Set(reports.items.map((c) => c.id));
  const resolve = (text: string) => readableCitations(text, shown).trim();
  const kept = analysis.items[0];
  return {
    communities: reports.items.map((c) => ({ ...c, summary: resolve(c.summary) })),
    analysis: kept === undefined ? null : resolve(kept),
    tokens: reports.tokens + analysis.tokens,
  };
}

/** Reports cited by the analysis first (in rank order), then the rest in rank order. */
function citedFirst(communities: ContextCommunity[], analysis: string): ContextCommunity[] {
  const cited = new Set(citedCommunityIds(analysis, new Set(communities.map((c) => c.id))));
  if (cited.size === 0) return communities;
  return [...communities.filter((c) => cited.has(c.id)), ...communities.filter((c) => !cited.has(c.id))];
}
