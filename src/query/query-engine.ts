import type { KgragServices } from "../services.js";
import { answerQuestion, promptOverheadTokens } from "./answer/answer.js";
import { buildContext } from "./context/build-context.js";
import { QueryGraph } from "./graph/query-graph.js";
import { extractKeywords, type QueryKeywords } from "./keywords.js";
import { queryTexts } from "./modes/retrieval.js";
import { retrieve } from "./modes/retrieve.js";
import { type QueryOptionsInput, type ResolvedQueryOptions, resolveQueryOptions } from "./options.js";
import type { QueryResult } from "./result.js";

export type { QueryResult } from "./result.js";
/** Options of one query as callers pass them (all optional; see QueryOptionsSchema). */
export type QueryOptions = QueryOptionsInput;

import { resolveScope } from "./graph/scope.js";
import { MeteredChat, NO_USAGE } from "./usage-meter.js";

/**
 * Answers one question: keywords -> scope -> retrieval in the chosen mode -> budgeted context with
 * numbered passages -> answer (skipped with contextOnly). Everything the query did is in the result.
 */
export async function runQuery(
  services: KgragServices,
  question: string,
  input: QueryOptionsInput = {},
): Promise<QueryResult> {
  const started = performance.now();
  if (!question.trim()) throw new Error("The question is empty: pass the question to ask as text.");
  const options = resolveQueryOptions(services.config.query, input);
  const meter = services.chat ? new MeteredChat(services.chat) : null;
  const metered: KgragServices = { ...services, chat: meter };

  const keywords = await keywordsFor(metered, question, options);
  const graph = new QueryGraph(services.store, await resolveScope(services.store, options.scope));
  const vectors = await embedQueryTexts(services, question, keywords, options);
  const retrieval = await retrieve(options.mode, {
    services: metered,
    graph,
    question,
    keywords,
    options,
    vectors,
  });
  const answerOptions = {
    responseType: options.responseType,
    history: options.history,
    onToken: options.onToken,
  };
  const built = await buildContext(graph, retrieval, {
    ...options,
    reservedTokens: promptOverheadTokens(question, answerOptions),
  });
  const retrievalMs = performance.now() - started;
  options.onContext?.({ mode: options.mode, keywords, context: built.context, references: built.references });

  const answer = options.contextOnly ? "" : await answerQuestion(metered, question, built, answerOptions);
  return {
    ...(options.id === undefined ? {} : { id: options.id }),
    mode: options.mode,
    answer,
    keywords,
    context: built.context,
    references: built.references,
    usage: meter ? meter.usage() : { ...NO_USAGE },
    timings: { retrievalMs: round(retrievalMs), totalMs: round(performance.now() - started) },
  };
}

/** Naive retrieval reads passages only, so it spends no LLM call on keywords. */
async function keywordsFor(
  services: KgragServices,
  question: string,
  options: ResolvedQueryOptions,
): Promise<QueryKeywords> {
  if (options.mode === "naive") return { high: [], low: [] };
  return extractKeywords(services, question, options.history);
}

/** All the query texts the mode needs, embedded in one call. */
async function embedQueryTexts(
  services: KgragServices,
  question: string,
  keywords: QueryKeywords,
  options: ResolvedQueryOptions,
): Promise<Map<string, number[]>> {
  const texts = queryTexts(question, keywords, options.mode);
  const vectors = await services.embedder.embed(texts);
  return new Map(texts.map((text, i) => [text, vectors[i] ?? []]));
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
