import { withAbortSignal } from "../llm/chat-model.js";
import { describeGiven, OptionsError } from "../options-error.js";
import { communitiesAreStale } from "../pipeline/community-freshness.js";
import { stopPoint } from "../pipeline/stop-point.js";
import type { KgragServices } from "../services.js";
import type { ScoredId } from "../types.js";
import { answerQuestion, promptOverheadTexts } from "./answer/answer.js";
import { STRUCTURED_OUTPUT_OFFLINE } from "./answer/structured-output.js";
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

import { inSpan, SPANS } from "../telemetry/spans.js";
import { resolveScope } from "./graph/scope.js";
import { RERANKED_MODES, type RerankOutcome, rerankPassages } from "./rerank-passages.js";
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
  checkQuestion(question, services.config.query.maxQuestionChars);
  const options = resolveQueryOptions(services.config.query, input);
  // Before any retrieval: offline there will be no JSON answer to give.
  if (options.structuredOutput && !services.chat && !options.contextOnly)
    throw new OptionsError(STRUCTURED_OUTPUT_OFFLINE);
  return inSpan(
    SPANS.query,
    { "kgrag.query.mode": options.mode, "kgrag.query.scoped": !!options.scope },
    async (span) => {
      const result = await runQuerySteps(services, question, options);
      span.setAttributes({
        "kgrag.query.references": result.references.length,
        "kgrag.llm.calls": result.usage.llmCalls,
      });
      return result;
    },
  );
}

/** JavaScript callers can pass anything: say what a question must be, not "cannot read ... (reading 'trim')". */
function checkQuestion(question: unknown, maxChars: number): void {
  if (typeof question !== "string")
    throw new OptionsError(`The question must be a non-empty string; got ${describeGiven(question)}.`);
  if (!question.trim()) throw new OptionsError("The question is empty: pass the question to ask as text.");
  if (question.length > maxChars) {
    throw new OptionsError(
      `The question is ${question.length.toLocaleString("en-US")} characters long; at most ` +
        `${maxChars.toLocaleString("en-US")} are taken (config query.maxQuestionChars).`,
    );
  }
}

async function runQuerySteps(
  services: KgragServices,
  question: string,
  options: ResolvedQueryOptions,
): Promise<QueryResult> {
  const started = performance.now();
  const { signal } = options;
  const chat = services.chat && signal ? withAbortSignal(services.chat, signal) : services.chat;
  const meter = chat ? new MeteredChat(chat, services.config) : null;
  const metered: KgragServices = { ...services, chat: meter };

  // Between steps the query stops if its signal was aborted; a model call is aborted by it at once.
  await stopPoint(signal);
  const keywords = await inSpan(SPANS.queryStep("keywords"), {}, async (span) => {
    const found = await keywordsFor(metered, question, options);
    span.setAttributes({ "kgrag.keywords.high": found.high, "kgrag.keywords.low": found.low });
    return found;
  });
  const unfinished = await services.store.unfinishedDocumentCount();
  const scope = await resolveScope(services.store, options.scope);
  // Each filter names something that exists, but together they leave no passage (see checkScope).
  const emptyScope = scope !== undefined && scope.chunkIds.size === 0;
  const graph = new QueryGraph(services.store, scope);
  const vectors = await embedQueryTexts(services, question, keywords, options);
  await stopPoint(signal);
  const retrieval = await inSpan(
    SPANS.queryStep("retrieve"),
    { "kgrag.query.mode": options.mode },
    async (span) => {
      const found = await retrieve(options.mode, {
        services: metered,
        graph,
        question,
        keywords,
        options,
        vectors,
      });
      span.setAttributes(retrievalCounts(found));
      return found;
    },
  );
  await stopPoint(signal);
  const reranked = await rerankStep(services, question, options, retrieval.chunks);
  const ranked = { ...retrieval, chunks: reranked.chunks };
  const tokens = answerTokens(options.onToken);
  const answerOptions = {
    responseType: options.responseType,
    history: options.history,
    onToken: tokens.onToken,
    structuredOutput: options.structuredOutput,
  };
  const built = await inSpan(SPANS.queryStep("context"), {}, async (span) => {
    const context = await buildContext(graph, ranked, {
      ...options,
      reservedTexts: promptOverheadTexts(question, answerOptions),
    });
    span.setAttributes(retrievalCounts(context.context));
    return context;
  });
  await stopPoint(signal);
  const retrievalMs = performance.now() - started;
  options.onContext?.({ mode: options.mode, keywords, context: built.context, references: built.references });

  // Passages were found but the budget left none of them room: say so, rather than "nothing matches".
  const emptyContext = built.context.chunks.length === 0 && built.context.communities.length === 0;
  const squeezed = ranked.chunks.length > 0 && emptyContext;
  const staleReports = built.context.communities.length > 0 && (await communitiesAreStale(services.store));
  // A workspace with no document finds nothing: say that, not how to build its community reports.
  const nothingIndexed = emptyContext && (await services.store.counts()).documents === 0;
  const warnings = nothingIndexed
    ? [NOTHING_INDEXED]
    : [
        ...(unfinished > 0 ? [notFullyIndexed(unfinished)] : []),
        ...(emptyScope ? [EMPTY_SCOPE] : []),
        ...(retrieval.warnings ?? []),
        ...(reranked.warning ? [reranked.warning] : []),
        ...(squeezed ? [budgetTooSmall(options.totalTokens)] : []),
        ...(staleReports ? [STALE_COMMUNITY_REPORTS] : []),
      ];
  const { text: answer, warnings: answerWarnings } = options.contextOnly
    ? { text: "", warnings: [] }
    : emptyScope && emptyContext && !options.structuredOutput
      ? { text: NOTHING_IN_SCOPE, warnings: [] }
      : squeezed && !options.structuredOutput
        ? { text: NO_ROOM_FOR_PASSAGES, warnings: [] }
        : await inSpan(SPANS.queryStep("answer"), {}, async (span) => {
            const written = await answerQuestion(metered, question, built, answerOptions);
            span.setAttribute("kgrag.answer.chars", written.text.length);
            return written;
          });
  warnings.push(...answerWarnings);
  tokens.deliverUnstreamed(answer);
  return {
    ...(options.id === undefined ? {} : { id: options.id }),
    mode: options.mode,
    answer,
    keywords,
    context: built.context,
    references: built.references,
    usage: meter ? meter.usage() : { ...NO_USAGE },
    timings: { retrievalMs: round(retrievalMs), totalMs: round(performance.now() - started) },
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/**
 * onToken hears every answer, so that a caller streams one way whatever the workspace: a model's
 * answer as it is written, and one written at once (offline, "nothing matches", no room, a model
 * that does not stream) as a single token holding the whole text. None without an answer.
 */
function answerTokens(onToken: ((delta: string) => void) | undefined) {
  let streamed = false;
  return {
    onToken:
      onToken &&
      ((delta: string) => {
        streamed = true;
        onToken(delta);
      }),
    deliverUnstreamed(answer: string): void {
      if (onToken && !streamed && answer) onToken(answer);
    },
  };
}

/** The only warning of a query on a workspace where no document is indexed yet. */
export const NOTHING_INDEXED =
  "No document is indexed in this workspace yet, so there is nothing to answer from. Index some " +
  "first: `kgrag index PATH`, or upload them to `kgrag serve` (the web app's Documents view, " +
  "`POST /api/v1/documents`).";

/** The answer when the scope's filters, together, leave no document (see EMPTY_SCOPE). */
export const NOTHING_IN_SCOPE =
  "No indexed document is in this question's scope, so there is nothing to answer from.";

const EMPTY_SCOPE =
  "No indexed document matches the scope: its document ids and metadata filters each match some " +
  "document, but no document matches them all together. Drop or change one of them.";

/** The answer when passages matched but none fit the context budget (see the warning). */
export const NO_ROOM_FOR_PASSAGES =
  "Passages match this question, but none fit within the context budget, so there is nothing to cite.";

/** A run under way or stopped (kill, crash, Ctrl-C) left documents the answer may not know. */
export function notFullyIndexed(documents: number): string {
  const these = documents === 1 ? "1 document is" : `${documents} documents are`;
  return (
    `${these} not fully indexed yet (an index run is under way or was stopped), so the answer may miss ` +
    "what they say. Run `kgrag index` again to finish them."
  );
}

/** Reports in the context were written before the graph last changed (see communitiesAreStale). */
export const STALE_COMMUNITY_REPORTS =
  "The community reports used were written before the graph last changed (a curation edit, or an " +
  "index run without or stopped before its communities), so they may name what is gone. " +
  "Run `kgrag communities --rebuild` (or `kgrag index`) to bring them up to date.";

function budgetTooSmall(totalTokens: number): string {
  return (
    `No retrieved passage fit within the context budget (totalTokens ${totalTokens}, after the ` +
    "question and the entity and relationship budgets): raise totalTokens, lower entityTokens or " +
    "relationshipTokens, or shorten the question."
  );
}

/** The configured reranker's order for the passage-led modes; the retrieval order otherwise. */
async function rerankStep(
  services: KgragServices,
  question: string,
  options: ResolvedQueryOptions,
  chunks: ScoredId[],
): Promise<RerankOutcome> {
  const { reranker } = services;
  if (!reranker || !RERANKED_MODES.has(options.mode)) return { chunks };
  const attributes = { "kgrag.rerank.model": reranker.model, "kgrag.rerank.candidates": chunks.length };
  return inSpan(SPANS.queryStep("rerank"), attributes, async (span) => {
    const outcome = await rerankPassages(
      reranker,
      services.store,
      question,
      chunks,
      services.config.rerank?.topN,
    );
    if (outcome.warning) {
      services.progress.info(`kgrag: ${outcome.warning}`);
      span.addEvent("rerank_failed", { reason: outcome.warning });
    }
    return outcome;
  });
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

function retrievalCounts(found: Record<"entities" | "relationships" | "chunks" | "communities", unknown[]>) {
  return {
    "kgrag.entities": found.entities.length,
    "kgrag.relationships": found.relationships.length,
    "kgrag.chunks": found.chunks.length,
    "kgrag.communities": found.communities.length,
  };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
