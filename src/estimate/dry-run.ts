import type { KgragConfig } from "../config.js";
import { extractMessages, gleanMessages } from "../extraction/llm-messages.js";
import { chunkDocument } from "../ingest/chunker.js";
import { setAsideEmpty } from "../ingest/empty-input.js";
import { loadSources } from "../ingest/loaders.js";
import type { SkippedSource } from "../ingest/source-types.js";
import type { ChatMessage, Stage } from "../llm/chat-model.js";
import { renderPrompt } from "../llm/prompts.js";
import { stageSettings } from "../llm/stage-models.js";
import type { ChunkRecord, SourceDocument } from "../types.js";
import { countTokens } from "../util/tokens.js";

export interface StageEstimate {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  model: string | null;
  /** At the stage's configured prices; 0 when none are configured. */
  cost: number;
}

export interface DryRunReport {
  documents: number;
  chunks: number;
  chunkTokens: number;
  skipped: SkippedSource[];
  /** False when no chat model is configured: the offline built-ins would run, and these calls would not. */
  llmConfigured: boolean;
  stages: Partial<Record<Stage, StageEstimate>>;
  embedding: { model: string | null; inputs: number; calls: number; tokens: number; cost: number };
  totals: { calls: number; inputTokens: number; outputTokens: number; cost: number };
  /** The graph size the estimate assumed (config `estimate`). */
  assumed: { entities: number; relationships: number; reports: number };
}

interface Counted {
  calls: number;
  inputTokens: number;
  outputTokens: number;
}

const NONE: Counted = { calls: 0, inputTokens: 0, outputTokens: 0 };

function add(a: Counted, b: Counted): Counted {
  return {
    calls: a.calls + b.calls,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
}

/** Tokens of a conversation as the client and usage fallbacks count them: the contents joined. */
function tokensOf(messages: ChatMessage[]): number {
  return countTokens(messages.map((m) => m.content).join("\n"));
}

/**
 * Extraction and gleaning of one chunk, from the real prompts: the first call's input is exact;
 * answers are `estimate.extractionOutputRatio` of the chunk's tokens (a glean answer a share of
 * that), and each glean round carries the conversation so far.
 */
function extractionOf(
  config: KgragConfig,
  chunk: ChunkRecord,
  title: string,
): { extract: Counted; glean: Counted } {
  const { extraction, estimate } = config;
  const first = extractMessages(extraction, title, chunk.text);
  const answerTokens = Math.max(
    estimate.extractionMinOutputTokens,
    Math.round(chunk.tokens * estimate.extractionOutputRatio),
  );
  const extract = { calls: 1, inputTokens: tokensOf(first), outputTokens: answerTokens };
  let glean = NONE;
  let conversation = first;
  let answer = "x ".repeat(answerTokens);
  for (let round = 0; round < extraction.gleaning; round++) {
    conversation = gleanMessages(conversation, answer, extraction);
    const gleanTokens = Math.round(answerTokens * estimate.gleaningOutputShare);
    glean = add(glean, { calls: 1, inputTokens: tokensOf(conversation), outputTokens: gleanTokens });
    answer = "x ".repeat(gleanTokens);
  }
  return { extract, glean };
}

/** Summaries and reports scale with the graph, which only the model's answers decide: assumed from config. */
function graphStages(config: KgragConfig, chunks: number) {
  const { estimate, merge, community } = config;
  const entities = Math.round(chunks * estimate.entitiesPerChunk);
  const relationships = Math.round(chunks * estimate.relationshipsPerChunk);
  const summaryPrompt = countTokens(
    renderPrompt("summarize", {
      subject_kind: "entity",
      subject_name: "",
      language: "",
      max_tokens: 0,
      fragments: "",
    }),
  );
  const summaryCalls = Math.round((entities + relationships) * estimate.summarizedShare);
  const summarize = {
    calls: summaryCalls,
    inputTokens: summaryCalls * (summaryPrompt + merge.summaryMinTokens),
    outputTokens: summaryCalls * merge.summaryMaxTokens,
  };
  const reports = community.enabled && entities > 1 ? Math.ceil(entities / estimate.entitiesPerReport) : 0;
  const reportPrompt = countTokens(renderPrompt("community-report", { context: "" }));
  const reportContext = Math.round(community.reportContextTokens * estimate.reportContextShare);
  const report = {
    calls: reports,
    inputTokens: reports * (reportPrompt + reportContext),
    outputTokens: reports * estimate.reportOutputTokens,
  };
  return { summarize, report, assumed: { entities, relationships, reports } };
}

function priced(config: KgragConfig, stage: Stage, counted: Counted): StageEstimate {
  const settings = stageSettings(config, stage);
  const price = settings?.price;
  const cost = price
    ? (counted.inputTokens * price.inputPerMillion + counted.outputTokens * price.outputPerMillion) / 1e6
    : 0;
  return { ...counted, model: settings?.model ?? null, cost };
}

/** What indexing `documents` from scratch would ask of the models, without asking them anything. */
export function estimateIndexing(
  config: KgragConfig,
  documents: SourceDocument[],
  skipped: SkippedSource[] = [],
): DryRunReport {
  const { withText, empty } = setAsideEmpty(documents);
  let extract = NONE;
  let glean = NONE;
  let chunkCount = 0;
  let chunkTokens = 0;
  for (const doc of withText) {
    for (const chunk of chunkDocument(doc, config.chunking)) {
      const one = extractionOf(config, chunk, doc.title);
      extract = add(extract, one.extract);
      glean = add(glean, one.glean);
      chunkCount += 1;
      chunkTokens += chunk.tokens;
    }
  }
  const graph = graphStages(config, chunkCount);
  const stages: Partial<Record<Stage, StageEstimate>> = {
    extract: priced(config, "extract", extract),
    glean: priced(config, "glean", glean),
    summarize: priced(config, "summarize", graph.summarize),
    report: priced(config, "report", graph.report),
  };
  const embedding = embeddingEstimate(config, chunkCount, chunkTokens, graph.assumed);
  const all = Object.values(stages).reduce<Counted>((sum, s) => add(sum, s ?? NONE), NONE);
  const stageCost = Object.values(stages).reduce((sum, s) => sum + (s?.cost ?? 0), 0);
  return {
    documents: withText.length,
    chunks: chunkCount,
    chunkTokens,
    skipped: [...skipped, ...empty],
    llmConfigured: config.llm !== undefined,
    stages,
    embedding,
    totals: { ...all, cost: stageCost + embedding.cost },
    assumed: graph.assumed,
  };
}

/** Chunks, entities, relationships and reports each get a vector, sent in batches. */
function embeddingEstimate(
  config: KgragConfig,
  chunks: number,
  chunkTokens: number,
  assumed: { entities: number; relationships: number; reports: number },
) {
  const batch = config.embedding?.batchSize ?? 32;
  const kinds = [chunks, assumed.entities, assumed.relationships, assumed.reports];
  const inputs = kinds.reduce((sum, n) => sum + n, 0);
  const calls = kinds.reduce((sum, n) => sum + Math.ceil(n / batch), 0);
  // Entity and relationship texts are a name and a description or two: about 40 tokens; a report's summary about 300.
  const tokens = chunkTokens + 40 * (assumed.entities + assumed.relationships) + 300 * assumed.reports;
  const price = config.embedding?.price;
  const cost = price ? (tokens * price.inputPerMillion) / 1e6 : 0;
  return { model: config.embedding?.model ?? null, inputs, calls, tokens, cost };
}

/** Loads the paths as `kgrag index` would and estimates them. */
export async function dryRunIndex(config: KgragConfig, paths: string[]): Promise<DryRunReport> {
  const { documents, skipped } = await loadSources(paths);
  return estimateIndexing(config, documents, skipped);
}
