import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { HistoryMessage, QueryMode } from "../../query/options.js";
import type { QueryResult } from "../../query/result.js";
import { citedSources, communitySourceLine, pagesPart } from "../../query/result-text.js";
import { ollamaErrorBody, streamFailure } from "../errors.js";
import { clientGoneSignal } from "../queries/query-limits.js";
import type { ServedWorkspace } from "../workspaces.js";

/**
 * One object of an Ollama reply around a piece of the answer: /api/chat carries the text as
 * `message.content`, /api/generate as `response`.
 */
export type OllamaFrame = (text: string, done: boolean) => Record<string, unknown>;

export function chatFrame(model: string): OllamaFrame {
  return (content, done) => ({
    model,
    created_at: new Date().toISOString(),
    message: { role: "assistant", content },
    done,
  });
}

export function generateFrame(model: string): OllamaFrame {
  return (response, done) => ({ model, created_at: new Date().toISOString(), response, done });
}

/** Ollama's `keep_alive`: a duration string ("5m", "0"), or a number of seconds. */
export const KeepAliveSchema = z.union([z.number(), z.string()]).optional();

/** Whether a `keep_alive` asks to unload the model (zero: `0`, `"0"`, `"0s"`, `"0m"`...). */
export function asksToUnload(keepAlive: number | string | undefined): boolean {
  if (typeof keepAlive === "number") return keepAlive === 0;
  return keepAlive !== undefined && /^\s*0+(\.0*)?\s*(ns|us|µs|ms|s|m|h)?\s*$/.test(keepAlive);
}

/**
 * What Ollama answers a request with nothing to answer (no messages, an empty prompt): its clients
 * send one to load a model, or with `keep_alive: 0` to unload it (Open WebUI's unload button). A
 * workspace stays open while the server runs, so there is nothing to do but say it was done.
 */
export function loadReply(frame: OllamaFrame, keepAlive: number | string | undefined) {
  return { ...frame("", true), done_reason: asksToUnload(keepAlive) ? "unload" : "load" };
}

/** The statistics of an answer kgrag gave without a query (a notice). */
const NOTHING_RUN: Pick<QueryResult, "timings" | "usage"> = {
  timings: { retrievalMs: 0, totalMs: 0 },
  usage: { llmCalls: 0, promptTokens: 0, completionTokens: 0 },
};

/**
 * The statistics Ollama puts on a reply's last object, durations in nanoseconds. Typed clients
 * (Rust's serde, Kotlin's serialization, ollama-js's types) expect every one of them. Retrieval
 * stands for Ollama's prompt evaluation, the rest of the query for generating the answer; kgrag
 * loads nothing.
 */
export function usageFields(result: Pick<QueryResult, "timings" | "usage"> = NOTHING_RUN) {
  const nanoseconds = (ms: number) => Math.round(ms * 1e6);
  const { totalMs, retrievalMs } = result.timings;
  return {
    total_duration: nanoseconds(totalMs),
    load_duration: 0,
    prompt_eval_count: result.usage.promptTokens,
    prompt_eval_duration: nanoseconds(retrievalMs),
    eval_count: result.usage.completionTokens,
    eval_duration: nanoseconds(Math.max(0, totalMs - retrievalMs)),
  };
}

/**
 * The answer with its [n] citations kept and the cited passages (all, if none is cited) under
 * "Sources", then the community reports it cites as [C:id], by title.
 */
export function answerWithSources(result: QueryResult): string {
  const { references, communities } = citedSources(result);
  const lines = [
    ...references.map((r) => `[${r.n}] ${r.title} (${r.docId}${pagesPart(r)}, passage ${r.chunkId})`),
    ...communities.map(communitySourceLine),
  ];
  if (lines.length === 0) return result.answer;
  return `${result.answer.trimEnd()}\n\nSources:\n${lines.join("\n")}`;
}

/** A text kgrag answers itself (no query ran): one object, or as a stream its text then the last object. */
export function sendNotice(reply: FastifyReply, frame: OllamaFrame, text: string, stream: boolean) {
  if (!stream) return { ...frame(text, true), done_reason: "stop", ...usageFields() };
  const last = { ...frame("", true), done_reason: "stop", ...usageFields() };
  return reply
    .type("application/x-ndjson")
    .send(`${JSON.stringify(frame(text, false))}\n${JSON.stringify(last)}\n`);
}

export interface OllamaQuestion {
  question: string;
  mode: QueryMode;
  history: HistoryMessage[];
}

/**
 * Answers a question on the workspace as Ollama would: one object (stream false), or NDJSON, the
 * answer's tokens as the model writes them (the whole answer at once offline), then its sources,
 * then the last object with the statistics. A failure once the stream has opened is its last line,
 * `{error}`, as Ollama sends one.
 */
export async function sendAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  workspace: ServedWorkspace,
  asked: OllamaQuestion,
  stream: boolean,
  frame: OllamaFrame,
) {
  const { queries } = workspace;
  const options = { mode: asked.mode, history: asked.history };
  const call = { clientGone: clientGoneSignal(reply) };
  if (!stream) {
    const result = await queries.run(asked.question, options, {}, call);
    return { ...frame(answerWithSources(result), true), done_reason: "stop", ...usageFields(result) };
  }
  reply.hijack();
  reply.raw.writeHead(200, { ...headersOf(reply.getHeaders()), "content-type": "application/x-ndjson" });
  const write = (value: unknown) => {
    if (!reply.raw.destroyed) reply.raw.write(`${JSON.stringify(value)}\n`);
  };
  let streamed = false;
  try {
    const result = await queries.run(
      asked.question,
      options,
      {
        onToken: (text) => {
          streamed = true;
          write(frame(text, false));
        },
      },
      call,
    );
    const rest = streamed ? answerWithSources(result).slice(result.answer.length) : answerWithSources(result);
    if (rest) write(frame(rest, false));
    write({ ...frame("", true), done_reason: "stop", ...usageFields(result) });
  } catch (error) {
    write(ollamaErrorBody(streamFailure(request, error, "query_failed").error.message));
  }
  reply.raw.end();
  return undefined;
}

function headersOf(headers: Record<string, unknown>): Record<string, string | number | string[]> {
  return Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<
    string,
    string | number | string[]
  >;
}
