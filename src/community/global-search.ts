import pLimit from "p-limit";
import type { ChatModel } from "../llm/chat-model.js";
import { renderPrompt } from "../llm/prompts.js";
import type { KgragServices } from "../services.js";
import { countTokens } from "../util/tokens.js";
import { chatForJson, UnreadableReplyError } from "./chat-json.js";
import { packReportBatches, type ReportBatch } from "./global-batches.js";
import { type GlobalPoint, POINTS_JSON_SCHEMA, readPoints } from "./global-points.js";
import { offlineGlobalSearch } from "./offline-global.js";
import { type ReportedCommunity, selectReports } from "./select-reports.js";

export interface GlobalSearchOptions {
  /** Community level to answer from; defaults to config.query.communityLevel. */
  level?: number;
  /** e.g. "Multiple Paragraphs"; defaults to config.query.responseType. */
  responseType?: string;
  /** Streams the reduce step's answer. */
  onToken?: (delta: string) => void;
  /** Offline only: how many report summaries make up the extractive answer. */
  offlineReports?: number;
  /** Offline only: the question's vector when the caller has it (a query embeds it with its other texts). */
  questionVector?: number[];
}

export interface GlobalCommunityRef {
  id: string;
  level: number;
  title: string;
  summary: string;
  /** LLM: best score of the points citing the report (0-100). Offline: similarity to the question. */
  score: number;
}

export interface GlobalSearchResult {
  answer: string;
  /** "extractive" when no LLM is configured: the answer is quoted report summaries. */
  method: "llm" | "extractive";
  /** The reports the answer was built from. */
  communities: GlobalCommunityRef[];
  points: GlobalPoint[];
  /** There was no report to answer from: none at the level (the workspace has no communities). */
  noReports?: true;
}

/** Smallest share of a batch left for report text, however long the prompt around it grows. */
const MIN_BATCH_TOKENS = 128;

/**
 * "What are the main themes?": answered from community reports rather than retrieved passages.
 * Map: each batch of reports becomes scored points (stage global-map). Reduce: the best points
 * that fit the budget become the answer (stage global-reduce), citing reports as [C:<id>].
 */
export async function globalSearch(
  services: KgragServices,
  question: string,
  options: GlobalSearchOptions = {},
): Promise<GlobalSearchResult> {
  const level = options.level ?? services.config.query.communityLevel;
  const reports = selectReports(await services.store.listCommunities(), level);
  if (reports.length === 0) {
    return {
      answer:
        "There are no community reports to answer from yet. Index some documents, or run `kgrag communities --rebuild`.",
      method: services.chat ? "llm" : "extractive",
      communities: [],
      points: [],
      noReports: true,
    };
  }
  if (!services.chat) return offlineGlobalSearch(services, question, reports, options);
  const points = await mapReports(services, services.chat, question, reports);
  const answer = await reducePoints(services, services.chat, question, points, options);
  return { answer, method: "llm", communities: scoreCommunities(reports, points), points };
}

async function mapReports(
  services: KgragServices,
  chat: ChatModel,
  question: string,
  reports: ReportedCommunity[],
): Promise<GlobalPoint[]> {
  const { config } = services;
  const overhead = countTokens(
    renderPrompt("global-map", { question, reports: "" }),
    config.chunking.encoding,
  );
  const budget = Math.max(MIN_BATCH_TOKENS, config.query.globalBatchTokens - overhead);
  const batches = packReportBatches(reports, budget, config.community.seed, config.chunking.encoding);
  const limit = pLimit(config.llm?.concurrency ?? 4);
  const perBatch = await Promise.all(
    batches.map((batch) => limit(() => mapBatch(services, chat, question, batch))),
  );
  return perBatch.flat();
}

async function mapBatch(
  services: KgragServices,
  chat: ChatModel,
  question: string,
  batch: ReportBatch,
): Promise<GlobalPoint[]> {
  try {
    return await chatForJson(
      chat,
      {
        stage: "global-map",
        messages: [{ role: "user", content: renderPrompt("global-map", { question, reports: batch.text }) }],
        jsonSchema: POINTS_JSON_SCHEMA,
        temperature: 0,
      },
      (value) => readPoints(value, batch.communityIds),
    );
  } catch (error) {
    // One unreadable batch should not sink the answer; the other batches still count.
    if (!(error instanceof UnreadableReplyError)) throw error;
    services.progress.info(
      `Global search: skipped a batch of ${batch.communityIds.length} reports (${error.message}).`,
    );
    return [];
  }
}

async function reducePoints(
  services: KgragServices,
  chat: ChatModel,
  question: string,
  points: GlobalPoint[],
  options: GlobalSearchOptions,
): Promise<string> {
  const { config } = services;
  if (points.length === 0) {
    return "None of the community reports says anything that answers this question.";
  }
  const responseType = options.responseType ?? config.query.responseType;
  const template = renderPrompt("global-reduce", { question, points: "", response_type: responseType });
  const budget = config.query.globalBatchTokens - countTokens(template, config.chunking.encoding);
  const text = pointsWithinBudget(points, Math.max(MIN_BATCH_TOKENS, budget), config.chunking.encoding);
  const reply = await chat.chat({
    stage: "global-reduce",
    messages: [
      {
        role: "user",
        content: renderPrompt("global-reduce", { question, points: text, response_type: responseType }),
      },
    ],
    temperature: 0,
    onToken: options.onToken,
  });
  return reply.text.trim();
}

/** Best points first, as many as fit; a point that does not fit is skipped, smaller ones still tried. */
export function pointsWithinBudget(
  points: readonly GlobalPoint[],
  budget: number,
  encoding?: Parameters<typeof countTokens>[1],
): string {
  const ranked = points
    .map((point, order) => ({ point, order }))
    .sort((a, b) => b.point.score - a.point.score || a.order - b.order);
  const blocks: string[] = [];
  let used = 0;
  for (const { point } of ranked) {
    const block = `----Analyst ${blocks.length + 1}----\nImportance score: ${point.score}\n${point.description}\n\n`;
    const cost = countTokens(block, encoding);
    if (used + cost > budget) continue;
    blocks.push(block);
    used += cost;
  }
  return blocks.join("").trim();
}

function scoreCommunities(reports: ReportedCommunity[], points: GlobalPoint[]): GlobalCommunityRef[] {
  const best = new Map<string, number>();
  for (const point of points) {
    for (const id of point.communityIds) best.set(id, Math.max(best.get(id) ?? 0, point.score));
  }
  return reports
    .map((c) => ({
      id: c.id,
      level: c.level,
      title: c.report.title,
      summary: c.report.summary,
      score: best.get(c.id) ?? 0,
    }))
    .sort((a, b) => b.score - a.score);
}
