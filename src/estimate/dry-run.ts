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
import { type EarlierWork, NO_EARLIER_WORK, readWorkspace, type WorkspaceGraph } from "./workspace-graph.js";

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
  /** Every chunk of the documents, including those an earlier, unfinished run extracted already. */
  chunks: number;
  chunkTokens: number;
  /** Chunks of resumed documents (an earlier run did not finish them) merged already: not extracted again. */
  chunksDone: number;
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

/** What the estimate runs with besides the documents: the workspace it updates, if any. */
export interface EstimateContext {
  /** The workspace's graph and communities (old versions of changed documents left out). */
  workspace?: WorkspaceGraph;
  /** Chunks of resumed documents an earlier run merged or embedded. */
  earlier?: EarlierWork;
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
 * With `earlier`, the chunks an unfinished run merged are not extracted again, nor the ones it
 * embedded embedded again, as a resumed run skips them.
 */
export async function estimateIndexing(
  config: KgragConfig,
  documents: SourceDocument[],
  skipped: SkippedSource[] = [],
  { workspace, earlier = NO_EARLIER_WORK }: EstimateContext = {},
): Promise<DryRunReport> {
  const { withText, empty } = setAsideEmpty(documents);
  const standIn = new StandInExtractor(config.estimate);
  let extract = NONE;
  let glean = NONE;
  const chunks: ChunkRecord[] = [];
  const toEmbed: ChunkRecord[] = [];
  const mentions: ChunkMentions[] = [];
  let chunksDone = 0;
  for (const doc of withText) {
    for (const chunk of chunkDocument(doc, config.chunking)) {
      chunks.push(chunk);
      if (!earlier.embeddedChunks.has(chunk.id)) toEmbed.push(chunk);
      // Its mentions are in the workspace's graph already.
      if (earlier.mergedChunks.has(chunk.id)) {
        chunksDone += 1;
        continue;
      }
      const extraction = standIn.extract(chunk, doc.title);
      const one = extractionOf(config, chunk, doc.title, extraction);
      extract = add(extract, one.extract);
      glean = add(glean, one.glean);
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
  const embedding = embeddingEstimate(config, embeddingStage(config, toEmbed, graph, report.reports));
  const all = Object.values(stages).reduce<Counted>((sum, s) => add(sum, s ?? NONE), NONE);
  const stageCost = Object.values(stages).reduce((sum, s) => sum + (s?.cost ?? 0), 0);
  return {
    documents: withText.length,
    chunks: chunks.length,
    chunkTokens: chunks.reduce((sum, c) => sum + c.tokens, 0),
    chunksDone,
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
 * as indexed already with the same title and text. `updated`: documents whose content changed,
 * whose old version the estimate removes from the workspace's graph first, as the run does.
 * `resumed`: documents an earlier run did not finish, estimated by the work left (`chunksDone`).
 * `workspaceRead` false: the store was not opened (Neo4j), so no document was left out and
 * existing communities were not read.
 */
export interface IndexDryRunReport extends DryRunReport {
  unchanged: number;
  updated: number;
  resumed: number;
  workspaceRead: boolean;
}

/**
 * Loads the paths as `kgrag index` would and estimates them as an update of the configured
 * workspace (estimateUpdate).
 */
export async function dryRunIndex(config: KgragConfig, paths: string[]): Promise<IndexDryRunReport> {
  const { documents, skipped } = await loadSources(paths);
  return estimateUpdate(config, documents, skipped);
}

/**
 * The documents estimated as an update of the configured workspace, as a run would do it: the
 * documents it holds with the same content are left out, changed ones have their old version
 * removed from the graph first, unfinished ones are estimated by the work left.
 */
export async function estimateUpdate(
  config: KgragConfig,
  documents: SourceDocument[],
  skipped: SkippedSource[] = [],
): Promise<IndexDryRunReport> {
  const workspace = await readWorkspace(config, documents);
  const unchanged = new Set(workspace.unchanged);
  const toExtract = documents.filter((doc) => !unchanged.has(doc.id));
  const report = await estimateIndexing(config, toExtract, skipped, {
    ...(workspace.graph ? { workspace: workspace.graph } : {}),
    earlier: workspace.earlier,
  });
  return {
    ...report,
    unchanged: unchanged.size,
    updated: workspace.changed.length,
    resumed: workspace.resumed.length,
    workspaceRead: workspace.read,
  };
}
