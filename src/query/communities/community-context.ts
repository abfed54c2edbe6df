import { type GlobalSearchResult, globalSearch } from "../../community/global-search.js";
import { offlineGlobalSearch } from "../../community/offline-global.js";
import type { RetrievalInput } from "../modes/retrieval.js";
import type { ContextCommunity } from "../result.js";
import { reportsAtLevel } from "./community-reports.js";

export interface CommunityContext {
  communities: ContextCommunity[];
  /** The reports' map-reduce answer (GraphRAG global search), when a model wrote one. */
  analysis: string | null;
}

const NONE: CommunityContext = { communities: [], analysis: null };

/**
 * Community reports for the question, once communities exist. With a model, global mode runs the
 * full map-reduce over the reports (worth its calls for whole-corpus questions) and keeps the
 * reports the model found relevant plus its analysis. Otherwise (offline, contextOnly, hybrid and
 * mix) reports are chosen by embedding similarity, at no LLM cost. Reports summarise whole
 * communities, which may reach outside a document scope, so scoped queries use none.
 */
export async function communityContext(input: RetrievalInput, useModel: boolean): Promise<CommunityContext> {
  const { services, options } = input;
  if (input.graph.scope) return NONE;
  const withModel = useModel && services.chat !== null;
  const searchOptions = { responseType: options.responseType };
  let result: GlobalSearchResult;
  if (withModel) {
    result = await globalSearch(services, input.question, searchOptions);
  } else {
    const reports = await reportsAtLevel(services.store, services.config.query.communityLevel);
    if (reports.length === 0) return NONE;
    // The offline ranking of global search (report similarity), on the cached reports.
    result = await offlineGlobalSearch({ ...services, chat: null }, input.question, reports, searchOptions);
  }
  if (result.communities.length === 0) return NONE;
  const relevant = result.communities.filter((c) =>
    withModel ? c.score > 0 : c.score >= options.similarityThreshold,
  );
  return {
    communities: relevant.map(({ id, level, title, summary }) => ({ id, level, title, summary })),
    analysis: withModel && relevant.length ? result.answer : null,
  };
}
