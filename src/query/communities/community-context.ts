import { citedCommunityIds, stripLocalCitations } from "../../community/citations.js";
import { type GlobalSearchResult, globalSearch } from "../../community/global-search.js";
import { offlineGlobalSearch } from "../../community/offline-global.js";
import { questionWords, sharesAWord } from "../../community/shared-words.js";
import type { GraphStore } from "../../storage/graph-store.js";
import { questionType } from "../answer/question-type.js";
import type { RetrievalInput } from "../modes/retrieval.js";
import type { ContextCommunity } from "../result.js";
import { reportsAtLevel } from "./community-reports.js";

export interface CommunityContext {
  communities: ContextCommunity[];
  /** The reports' map-reduce answer (GraphRAG global search), when a model wrote one. */
  analysis: string | null;
  /** The workspace has no community report at all (indexed with --no-communities, or not built yet). */
  noReports?: true;
}

const NONE: CommunityContext = { communities: [], analysis: null };
const NO_REPORTS: CommunityContext = { ...NONE, noReports: true };
/** Reports a whole-corpus question is answered from, and top-level communities whose hubs seed local. */
export const BROADEST_THEMES = 5;

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
    if (result.noReports) return NO_REPORTS;
  } else {
    const reports = await reportsAtLevel(services.store, services.config.query.communityLevel);
    if (reports.length === 0) return NO_REPORTS;
    // The offline ranking of global search (report similarity), on the cached reports.
    const questionVector = input.vectors.get(input.question);
    result = await offlineGlobalSearch({ ...services, chat: null }, input.question, reports, {
      ...searchOptions,
      ...(questionVector ? { questionVector } : {}),
    });
  }
  if (result.communities.length === 0) return NONE;
  const similar = result.communities.filter((c) =>
    withModel ? c.score > 0 : c.score >= options.similarityThreshold,
  );
  // A whole-corpus question ("what are the main themes?") shares no words with any report, or
  // only chance ones ("main product"), so offline it is answered from the broadest themes: the
  // largest top-level communities.
  const wholeCorpus = questionType(input.question).theme;
  if (!withModel && wholeCorpus) {
    return { communities: await broadestThemes(services.store), analysis: null };
  }
  // In global mode the reports are the answer to any question, so below the similarity threshold
  // it falls back to the closest reports that share a word with the question; none when no report
  // does ("zzqx flibber"): the answer then says nothing matches, and the context agrees with it.
  if (!withModel && similar.length === 0 && options.mode === "global") {
    const words = questionWords(input.question);
    const related = result.communities.filter((c) => sharesAWord(words, `${c.title} ${c.summary}`));
    return { communities: related.map(contextCommunity), analysis: null };
  }
  // The analysis cites reports as [C:<id>]: every report it cites belongs in the context, so the
  // reader can look each one up, even one whose own points scored low.
  const analysis = withModel && similar.length ? result.answer : null;
  const kept = new Set(citedCommunityIds(analysis ?? "", new Set(result.communities.map((c) => c.id))));
  for (const c of similar) kept.add(c.id);
  const relevant = result.communities.filter((c) => kept.has(c.id));
  return { communities: relevant.map(contextCommunity), analysis };
}

/** The largest top-level communities' reports: what the corpus as a whole is about. */
export async function broadestThemes(store: GraphStore): Promise<ContextCommunity[]> {
  const broadest = (await reportsAtLevel(store, 0)).slice(0, BROADEST_THEMES);
  return broadest.map((c) => contextCommunity({ ...c, title: c.report.title, summary: c.report.summary }));
}

/**
 * A report as the query context shows it. Its [E:n]/[R:n] markers point into the context the
 * report was written from and mean nothing here; [C:<id>] markers are resolved once the context
 * is assembled (see context-communities.ts).
 */
function contextCommunity(c: {
  id: string;
  level: number;
  title: string;
  summary: string;
}): ContextCommunity {
  return { id: c.id, level: c.level, title: c.title, summary: stripLocalCitations(c.summary).trim() };
}
