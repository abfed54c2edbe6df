import { z } from "zod";
import type { QueryConfig, RankingConfig } from "../config.js";
import type { Scope } from "../types.js";
import { AbortSignalSchema } from "../util/abort-signal-schema.js";
import { closestName } from "../util/closest-name.js";
import { parseOptions } from "../util/strict-options.js";
import { type StructuredOutput, StructuredOutputSchema } from "./answer/structured-output.js";
import { GRAPH_RANKINGS, type GraphRanking, QUERY_MODES, type QueryMode } from "./mode-names.js";
import { rankDepth, tokenBudget } from "./option-limits.js";
import type { QueryResult } from "./result.js";

export { GRAPH_RANKINGS, type GraphRanking, QUERY_MODES, type QueryMode };

const HistoryMessageSchema = z.object({
  role: z.enum(["user", "assistant"]),
  content: z.string(),
});
export type HistoryMessage = z.infer<typeof HistoryMessageSchema>;

/**
 * Per-query options; numeric settings left out fall back to the workspace `query` config. Strict:
 * a misspelt option (`filter`, `topk`) would otherwise be dropped and the query run unfiltered.
 */
export const QueryOptionsSchema = z.strictObject({
  id: z.string().optional(),
  mode: z.enum(QUERY_MODES).default("mix"),
  /** Bounded as in the workspace config (option-limits.ts): no value reaches an allocation sized by it. */
  topK: rankDepth().optional(),
  chunkTopK: rankDepth().optional(),
  entityTokens: tokenBudget(0).optional(),
  relationshipTokens: tokenBudget(0).optional(),
  totalTokens: tokenBudget(256).optional(),
  similarityThreshold: z.number().min(-1).max(1).optional(),
  /** Restrict retrieval to these documents (applied before ranking). */
  docIds: z.array(z.string().min(1)).optional(),
  /**
   * Restrict retrieval to documents whose metadata has all these key=value pairs. Values compare
   * as text, as the CLI's `--filter year=2015` does: 2015, "2015" and true/"true" match alike.
   */
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  contextOnly: z.boolean().default(false),
  responseType: z.string().min(1).optional(),
  history: z.array(HistoryMessageSchema).default([]),
  graphRanking: z.enum(GRAPH_RANKINGS).default("ppr"),
  /**
   * Answer as JSON: any JSON object (`{}`), or one following `schema` (a JSON Schema). Needs a chat
   * model (an OptionsError offline); the answer is then the model's JSON, without citations cleaned.
   */
  structuredOutput: StructuredOutputSchema.optional(),
  /**
   * Receives the answer's text: as a model writes it, or once, whole, for an answer written at once
   * (offline, nothing found, a model that does not stream). The pieces joined are the answer.
   */
  onToken: z
    .custom<(delta: string) => void>((value) => typeof value === "function", "onToken must be a function")
    .optional(),
  /** Receives the retrieved context and references before the answer is written (streaming APIs). */
  onContext: z
    .custom<(context: QueryContextEvent) => void>(
      (value) => typeof value === "function",
      "onContext must be a function",
    )
    .optional(),
  /**
   * Stops the query at its next step (between keywords, retrieval, context and answer) and aborts
   * its model calls; the query then rejects with the signal's reason.
   */
  signal: AbortSignalSchema.optional(),
});

/** What a query retrieved, handed to `onContext` before the answer is generated. */
export type QueryContextEvent = Pick<QueryResult, "mode" | "keywords" | "context" | "references">;

export type QueryOptionsInput = z.input<typeof QueryOptionsSchema>;

export interface ResolvedQueryOptions {
  id: string | undefined;
  mode: QueryMode;
  topK: number;
  chunkTopK: number;
  entityTokens: number;
  relationshipTokens: number;
  totalTokens: number;
  similarityThreshold: number;
  scope: Scope | undefined;
  contextOnly: boolean;
  responseType: string;
  history: HistoryMessage[];
  graphRanking: GraphRanking;
  structuredOutput: StructuredOutput | undefined;
  onToken: ((delta: string) => void) | undefined;
  /** config query.ranking: PageRank damping, fusion constant, text-hit floor. */
  ranking: RankingConfig;
  onContext: ((context: QueryContextEvent) => void) | undefined;
  signal: AbortSignal | undefined;
}

/** Validates the caller's options (an OptionsError says what is wrong) and fills the gaps from the workspace config. */
export function resolveQueryOptions(
  config: QueryConfig,
  input: QueryOptionsInput = {},
): ResolvedQueryOptions {
  const o = parseOptions(QueryOptionsSchema, input, { what: "query", synonyms: OPTION_SYNONYMS });
  return {
    id: o.id,
    mode: o.mode,
    topK: o.topK ?? config.topK,
    chunkTopK: o.chunkTopK ?? config.chunkTopK,
    entityTokens: o.entityTokens ?? config.entityTokens,
    relationshipTokens: o.relationshipTokens ?? config.relationshipTokens,
    totalTokens: o.totalTokens ?? config.totalTokens,
    similarityThreshold: o.similarityThreshold ?? config.similarityThreshold,
    scope: scopeOf(o.docIds, o.metadata),
    contextOnly: o.contextOnly,
    responseType: o.responseType ?? config.responseType,
    history: o.history,
    graphRanking: o.graphRanking,
    structuredOutput: o.structuredOutput,
    onToken: o.onToken,
    ranking: config.ranking,
    onContext: o.onContext,
    signal: o.signal,
  };
}

/** Names callers reach for that mean one of our options under another name. */
export const OPTION_SYNONYMS: Readonly<Record<string, string>> = {
  filter: "metadata",
  filters: "metadata",
  where: "metadata",
  doc: "docIds",
  docs: "docIds",
  documents: "docIds",
  k: "topK",
  limit: "topK",
  stream: "onToken",
};

/** The option an unknown name most likely meant: another spelling, a synonym or a slip away. */
export function suggestQueryOption(name: string): string | undefined {
  return closestName(name, Object.keys(QueryOptionsSchema.shape), OPTION_SYNONYMS);
}

/** The scope the options ask for, without validating the rest (a batch checks it before any question runs). */
export function scopeOfOptions(input: QueryOptionsInput): Scope | undefined {
  return scopeOf(input.docIds, input.metadata);
}

function scopeOf(
  docIds: string[] | undefined,
  metadata: Record<string, string | number | boolean> | undefined,
): Scope | undefined {
  const hasDocs = docIds !== undefined && docIds.length > 0;
  const hasMeta = metadata !== undefined && Object.keys(metadata).length > 0;
  if (!hasDocs && !hasMeta) return undefined;
  const asText = hasMeta
    ? Object.fromEntries(Object.entries(metadata).map(([key, value]) => [key, String(value)]))
    : undefined;
  return { ...(hasDocs ? { docIds } : {}), ...(asText ? { metadata: asText } : {}) };
}
