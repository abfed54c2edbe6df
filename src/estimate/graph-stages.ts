import { clusterHierarchy } from "../community/cluster.js";
import { EMBED_BATCH } from "../community/embed-reports.js";
import { GraphIndex, graphIndexOf } from "../community/graph-index.js";
import { projectGraph } from "../community/project-graph.js";
import { buildReportContext } from "../community/report-context.js";
import type { KgragConfig } from "../config.js";
import type { ChatModel, ChatRequest, ChatResponse } from "../llm/chat-model.js";
import { renderPrompt } from "../llm/prompts.js";
import { splitRelationshipKey } from "../merge/keys.js";
import { LlmDescriptionSummarizer } from "../merge/llm-summarizer.js";
import { clusterCommunities, clusterView } from "../pipeline/create-communities.js";
import { needsReport } from "../pipeline/create-community-reports.js";
import { entityEmbeddingText, relationshipEmbeddingText, WRITE_BATCH } from "../pipeline/embed-graph.js";
import { resolutionEmbedsEntities } from "../pipeline/resolve-entities.js";
import { findCandidates } from "../resolve/candidates.js";
import { confirmPair } from "../resolve/confirm.js";
import type { ChunkRecord, CommunityRecord } from "../types.js";
import { countTokens } from "../util/tokens.js";
import type { StandInGraph } from "./stand-in-graph.js";
import { type WorkspaceGraph, withStandIn } from "./workspace-graph.js";

export interface Counted {
  calls: number;
  inputTokens: number;
  outputTokens: number;
}

/** Text of about `tokens` tokens (" x" is one token in the GPT encodings), standing in for an answer. */
export function fillerOf(tokens: number): string {
  return "x ".repeat(Math.max(0, tokens)).trim();
}

/** A chat model that answers nothing real: it counts what a run would send and receive. */
class CountingChat implements ChatModel {
  readonly model = "estimate";
  readonly counted: Counted = { calls: 0, inputTokens: 0, outputTokens: 0 };

  constructor(private readonly answerTokens: number) {}

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const promptTokens = countTokens(request.messages.map((m) => m.content).join("\n"));
    this.counted.calls += 1;
    this.counted.inputTokens += promptTokens;
    this.counted.outputTokens += this.answerTokens;
    return {
      text: fillerOf(this.answerTokens),
      usage: { promptTokens, completionTokens: this.answerTokens },
      cached: false,
    };
  }
}

/**
 * The summarize stage on the stand-in graph: every record past the summary thresholds is put
 * through the real summarizer (map-reduce included) with a counting model. Summarised records get
 * a summary-sized description, as the later stages would see them.
 */
export async function summaryStage(config: KgragConfig, graph: StandInGraph): Promise<Counted> {
  const answerTokens = Math.min(config.estimate.summaryOutputTokens, config.merge.summaryMaxTokens);
  const chat = new CountingChat(answerTokens);
  const summarizer = new LlmDescriptionSummarizer(chat, {
    ...config.merge,
    language: config.extraction.language,
  });
  const names = new Map(graph.entities.map((e) => [e.key, e.name]));
  for (const entity of graph.entities.filter((e) => e.needsSummary)) {
    entity.description = await summarizer.summarize({ kind: "entity", name: entity.name }, entity.fragments);
  }
  for (const rel of graph.relationships.filter((r) => r.needsSummary)) {
    const [a, b] = splitRelationshipKey(rel.key);
    const name = `${names.get(a) ?? a} — ${names.get(b) ?? b}`;
    rel.description = await summarizer.summarize({ kind: "relationship", name }, rel.fragments);
  }
  return chat.counted;
}

/**
 * Entity resolution's confirmation calls (stage resolve) on the stand-in graph: one per pair its
 * names and the graph leave open, as the run's first round asks them with a chat model. Pairs that
 * only embedding similarity proposes need the model's vectors, so they are not counted.
 */
export async function resolveStage(config: KgragConfig, graph: StandInGraph): Promise<Counted> {
  const chat = new CountingChat(config.estimate.resolveOutputTokens);
  const asks =
    config.llm !== undefined && config.entityResolution !== "off" && config.resolution.confirmWithModel;
  if (!asks) return chat.counted;
  const byKey = new Map(graph.entities.map((e) => [e.key, e]));
  const open = findCandidates(graph.entities, graph.relationships, config.resolution).filter(
    (pair) => pair.decision === "confirm",
  );
  for (const pair of open) await confirmPair(chat, pair, byKey);
  return chat.counted;
}

/**
 * Community reports on the stand-in graph: the real clustering gives the communities (one report
 * each), the real context builder each report's prompt; the answer length is config `estimate`.
 * On a workspace with communities, the reports are those of the update: its graph with the
 * stand-in graph merged in, re-clustered as a run would (warm-started, ids carried over), and only
 * the communities whose content changes (or whose offline report a model would upgrade) counted.
 */
export function reportStage(
  config: KgragConfig,
  graph: StandInGraph,
  workspace?: WorkspaceGraph,
): Counted & { reports: number } {
  if (!config.community.enabled) return { calls: 0, inputTokens: 0, outputTokens: 0, reports: 0 };
  const { communities, index } = workspace
    ? changedCommunities(config, graph, workspace)
    : standInCommunities(config, graph);
  let inputTokens = 0;
  for (const community of communities) {
    // Children's reports stand in for a parent's detail only over budget, which fills the budget either way.
    const context = buildReportContext({
      community,
      index,
      childReports: [],
      budget: config.community.reportContextTokens,
      encoding: config.chunking.encoding,
    });
    inputTokens += countTokens(renderPrompt("community-report", { context: context.text }));
  }
  const reports = communities.length;
  return {
    calls: reports,
    inputTokens,
    outputTokens: reports * config.estimate.reportOutputTokens,
    reports,
  };
}

type ReportedCommunity = Pick<CommunityRecord, "id" | "level" | "entityKeys">;

/** Every community of the stand-in graph clustered from scratch (a new workspace). */
function standInCommunities(
  config: KgragConfig,
  graph: StandInGraph,
): { communities: ReportedCommunity[]; index: GraphIndex } {
  const communities = clusterHierarchy(projectGraph(graph.entities, graph.relationships), {
    maxClusterSize: config.community.maxClusterSize,
    seed: config.community.seed,
  });
  return { communities, index: new GraphIndex(graph.entities, graph.relationships) };
}

/** The communities of the updated workspace that a run would write a report for. */
function changedCommunities(
  config: KgragConfig,
  graph: StandInGraph,
  workspace: WorkspaceGraph,
): { communities: ReportedCommunity[]; index: GraphIndex } {
  const view = withStandIn(workspace.view, graph);
  const clustered = clusterView(config, view, workspace.warmStart);
  const { communities } = clusterCommunities(config, view, workspace.communities, clustered);
  const writer = { kind: config.llm ? ("llm" as const) : ("extractive" as const) };
  return {
    communities: communities.filter((community) => needsReport(community, writer)),
    index: graphIndexOf(view),
  };
}

export interface EmbeddingCount {
  inputs: number;
  calls: number;
  tokens: number;
}

/** Calls for `n` texts embedded `step` at a time, each step sent in batches of `batch`. */
function batchedCalls(n: number, step: number, batch: number): number {
  const fullSteps = Math.floor(n / step);
  return fullSteps * Math.ceil(step / batch) + Math.ceil((n % step) / batch);
}

/** What a namespace of `texts` costs when embedded `step` at a time in batches of `batch`. */
function countTexts(texts: string[], step: number, batch: number): EmbeddingCount {
  return {
    inputs: texts.length,
    calls: batchedCalls(texts.length, step, batch),
    tokens: texts.reduce((sum, text) => sum + countTokens(text), 0),
  };
}

export function addEmbeddingCounts(a: EmbeddingCount, b: EmbeddingCount): EmbeddingCount {
  return { inputs: a.inputs + b.inputs, calls: a.calls + b.calls, tokens: a.tokens + b.tokens };
}

/** Embedding requests by the index stage that sends them. */
export interface EmbeddingStages {
  /** Chunks, entities, relationships (the embed stages) and the community reports. */
  embed: EmbeddingCount;
  /** The entities, when entity resolution embeds them first (for its similar pairs). */
  resolve?: EmbeddingCount;
}

/**
 * What the embed stages, entity resolution and the report embeddings would send: the texts a run
 * builds from the graph. Resolution, when it looks for similar entities, embeds every entity before
 * the embed stage, which then has none left to embed; the entities it merges, re-embedded after,
 * are not counted (the stand-in graph cannot say which merge).
 */
export function embeddingStage(
  config: KgragConfig,
  chunks: ChunkRecord[],
  graph: StandInGraph,
  reports: number,
): EmbeddingStages {
  const batch = config.embedding?.batchSize ?? 32;
  const names = new Map(graph.entities.map((e) => [e.key, e.name]));
  const count = (texts: string[]) => countTexts(texts, WRITE_BATCH, batch);
  const entities = count(graph.entities.map(entityEmbeddingText));
  const reportCount: EmbeddingCount = {
    inputs: reports,
    calls: batchedCalls(reports, EMBED_BATCH, batch),
    tokens: reports * config.estimate.reportOutputTokens,
  };
  const rest = [
    count(chunks.map((c) => c.text)),
    count(graph.relationships.map((r) => relationshipEmbeddingText(r, names))),
    reportCount,
  ].reduce(addEmbeddingCounts);
  const resolves = graph.entities.length > 0 && resolutionEmbedsEntities(config, config.llm !== undefined);
  return resolves ? { embed: rest, resolve: entities } : { embed: addEmbeddingCounts(rest, entities) };
}
