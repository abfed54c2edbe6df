import type { KgragConfig } from "../config.js";
import { embeddingCost } from "../embedding/embedding-cost.js";
import { extractMessages, gleanMessages } from "../extraction/llm-messages.js";
import { chunkDocument } from "../ingest/chunker.js";
import { setAsideEmpty } from "../ingest/empty-input.js";
import { loadSources } from "../ingest/loaders.js";
import type { SkippedSource } from "../ingest/source-types.js";
import type { ChatMessage, Stage } from "../llm/chat-model.js";
import { stageSettings } from "../llm/stage-models.js";
import { tokenCost } from "../llm/usage-cost.js";
import { type ChunkMentions, mentionsFromExtraction } from "../merge/fold.js";
import type { ChunkRecord, Extraction, SourceDocument } from "../types.js";
import { countTokens } from "../util/tokens.js";
import {
  addEmbeddingCounts,
  type Counted,
  type EmbeddingCount,
  type EmbeddingStages,
  embeddingStage,
  fillerOf,
  reportStage,
  resolveStage,
  summaryStage,
} from "./graph-stages.js";
import { foldStandInGraph, StandInExtractor } from "./stand-in-graph.js";
import { readWorkspace, type WorkspaceGraph } from "./workspace-graph.js";

export interface StageEstimate {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  model: string | null;
  /** At the stage's configured prices; 0 when none are configured. */
  cost: number;
}

/** Embedding requests, their texts and tokens, and their cost at `embedding.price`. */
export interface EmbeddingEstimate {
  inputs: number;
  calls: number;
  tokens: number;
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
  embedding: EmbeddingEstimate & {
    model: string | null;
    /** The same by index stage: `resolve` only when entity resolution embeds the entities. */
    stages: { embed: EmbeddingEstimate; resolve?: EmbeddingEstimate };
  };
  totals: { calls: number; inputTokens: number; outputTokens: number; cost: number };
  /**
   * The graph the estimate assumed: the stand-in extractor's, merged and clustered (config
   * `estimate`). `existingCommunities`: the workspace's communities the update re-clusters (0 for
   * a new workspace), of which only the changed ones are among `reports`.
   */
  assumed: { entities: number; relationships: number; reports: number; existingCommunities: number };
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
 * its answer is the stand-in extraction as the JSON the prompt asks for, a glean answer
 * `estimate.gleaningOutputShare` of that, and each glean round carries the conversation so far.
 */
function extractionOf(
  config: KgragConfig,
  chunk: ChunkRecord,
  title: string,
  standIn: Extraction,
): { extract: Counted; glean: Counted } {
  const { extraction, estimate } = config;
  const first = extractMessages(extraction, title, chunk.text);
  const answer = JSON.stringify(standIn);
  const answerTokens = countTokens(answer);
  const extract = { calls: 1, inputTokens: tokensOf(first), outputTokens: answerTokens };
  let glean = NONE;
  let conversation = first;
  let previous = answer;
  for (let round = 0; round < extraction.gleaning; round++) {
    conversation = gleanMessages(conversation, previous, extraction);
    const gleanTokens = Math.round(answerTokens * estimate.gleaningOutputShare);
    glean = add(glean, { calls: 1, inputTokens: tokensOf(conversation), outputTokens: gleanTokens });
    previous = fillerOf(gleanTokens);
  }
  return { extract, glean };
}

function priced(config: KgragConfig, stage: Stage, counted: Counted): StageEstimate {
  const settings = stageSettings(config, stage);
  const cost = tokenCost(settings?.price, counted.inputTokens, counted.outputTokens);
  const { calls, inputTokens, outputTokens } = counted;
  return { calls, inputTokens, outputTokens, model: settings?.model ?? null, cost };
}

/**
 * What indexing `documents` would ask of the models, without asking them anything. Extraction
 * prompts are exact; the graph the later stages work on is the stand-in extractor's
 * (stand-in-graph.ts), put through the real merge, summary thresholds, clustering and report
 * context code, so summaries, reports and embeddings follow the corpus's own repetition. With
 * `workspace` (its graph and communities), reports are counted for the communities the update
 * changes, as a warm-started re-clustering keeps the others' reports; else for every community.
 */
export async function estimateIndexing(
  config: KgragConfig,
  documents: SourceDocument[],
  skipped: SkippedSource[] = [],
  workspace?: WorkspaceGraph,
): Promise<DryRunReport> {
  const { withText, empty } = setAsideEmpty(documents);
  const standIn = new StandInExtractor(config.estimate);
  let extract = NONE;
  let glean = NONE;
  const chunks: ChunkRecord[] = [];
  const mentions: ChunkMentions[] = [];
  for (const doc of withText) {
    for (const chunk of chunkDocument(doc, config.chunking)) {
      const extraction = standIn.extract(chunk, doc.title);
      const one = extractionOf(config, chunk, doc.title, extraction);
      extract = add(extract, one.extract);
      glean = add(glean, one.glean);
      chunks.push(chunk);
      mentions.push(mentionsFromExtraction(chunk.id, extraction));
    }
  }
  const graph = foldStandInGraph(mentions, config.merge);
  // Resolution asks about the graph as extracted, before summaries replace its descriptions.
  const resolve = await resolveStage(config, graph);
  const summarize = await summaryStage(config, graph);
  const report = reportStage(config, graph, workspace);
  const stages: Partial<Record<Stage, StageEstimate>> = {
    extract: priced(config, "extract", extract),
    glean: priced(config, "glean", glean),
    resolve: priced(config, "resolve", resolve),
    summarize: priced(config, "summarize", summarize),
    report: priced(config, "report", report),
  };
  const embedding = embeddingEstimate(config, embeddingStage(config, chunks, graph, report.reports));
  const all = Object.values(stages).reduce<Counted>((sum, s) => add(sum, s ?? NONE), NONE);
  const stageCost = Object.values(stages).reduce((sum, s) => sum + (s?.cost ?? 0), 0);
  return {
    documents: withText.length,
    chunks: chunks.length,
    chunkTokens: chunks.reduce((sum, c) => sum + c.tokens, 0),
    skipped: [...skipped, ...empty],
    llmConfigured: config.llm !== undefined,
    stages,
    embedding,
    totals: { ...all, cost: stageCost + embedding.cost },
    assumed: {
      entities: graph.entities.length,
      relationships: graph.relationships.length,
      reports: report.reports,
      existingCommunities: workspace?.communities.length ?? 0,
    },
  };
}

/** Embedding calls only happen with an embedding model; the offline hashing embedder costs nothing. */
function embeddingEstimate(config: KgragConfig, stages: EmbeddingStages): DryRunReport["embedding"] {
  const model = config.embedding?.model ?? null;
  const priced = (counted: EmbeddingCount): EmbeddingEstimate => ({
    inputs: counted.inputs,
    calls: model ? counted.calls : 0,
    tokens: counted.tokens,
    cost: embeddingCost(config, counted.tokens),
  });
  const { embed, resolve } = stages;
  const total = resolve ? addEmbeddingCounts(embed, resolve) : embed;
  const byStage = resolve ? { embed: priced(embed), resolve: priced(resolve) } : { embed: priced(embed) };
  return { model, ...priced(total), stages: byStage };
}

/**
 * `dryRunIndex`'s estimate, of the documents a run would extract. `unchanged`: documents left out
 * as indexed already with the same title and text. `workspaceRead` false: the store was not opened
 * (Neo4j), so no document was left out and existing communities were not read.
 */
export interface IndexDryRunReport extends DryRunReport {
  unchanged: number;
  workspaceRead: boolean;
}

/**
 * Loads the paths as `kgrag index` would and estimates them as an update of the configured
 * workspace: the documents it holds with the same content are left out, as a run skips them.
 */
export async function dryRunIndex(config: KgragConfig, paths: string[]): Promise<IndexDryRunReport> {
  const { documents, skipped } = await loadSources(paths);
  const workspace = await readWorkspace(config, documents);
  const unchanged = new Set(workspace.unchanged);
  const toExtract = documents.filter((doc) => !unchanged.has(doc.id));
  const report = await estimateIndexing(config, toExtract, skipped, workspace.graph);
  return { ...report, unchanged: unchanged.size, workspaceRead: workspace.read };
}
