import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { StructuredOutput } from "../../query/answer/structured-output.js";
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
  usage: { llmCalls: 0, promptTokens: 0, completionTokens: 0, cost: 0 },
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
 * "Sources", then the community reports it cites as [C:id], by title; then the query's warnings
 * (documents not fully indexed, no community reports...), which a chat client has no other place
 * to show.
 */
export function answerWithSources(result: QueryResult): string {
  const { references, communities } = citedSources(result);
  const sources = [
    ...references.map((r) => `[${r.n}] ${r.title} (${r.docId}${pagesPart(r)}, passage ${r.chunkId})`),
    ...communities.map(communitySourceLine),
  ];
  const warnings = result.warnings ?? [];
  const sections = [
    ...(sources.length > 0 ? [`Sources:\n${sources.join("\n")}`] : []),
    ...(warnings.length > 0 ? [`Warnings:\n${warnings.map((w) => `- ${w}`).join("\n")}`] : []),
  ];
  if (sections.length === 0) return result.answer;
  return [result.answer.trimEnd(), ...sections].join("\n\n");
}

/**
 * How a route words an answer: whole in one body, or as a stream of pieces then an end (Ollama's
 * NDJSON, OpenAI's server-sent events). `result` is absent for a text kgrag answered itself.
 */
export interface AnswerFormat {
  whole(text: string, result?: QueryResult): unknown;
  streamType: string;
  piece(text: string): string;
  end(result?: QueryResult): string;
  failure(message: string): string;
}

/** Ollama's: NDJSON objects around the text, the last one with the statistics; a failure is `{error}`. */
export function ollamaFormat(frame: OllamaFrame): AnswerFormat {
  const line = (value: unknown) => `${JSON.stringify(value)}\n`;
  const last = (text: string, result?: QueryResult) => ({
    ...frame(text, true),
    done_reason: "stop",
    ...usageFields(result),
  });
  return {
    whole: last,
    streamType: "application/x-ndjson",
    piece: (text) => line(frame(text, false)),
    end: (result) => line(last("", result)),
    failure: (message) => line(ollamaErrorBody(message)),
  };
}

/** A text kgrag answers itself (no query ran): whole, or as a stream of one piece and the end. */
export function sendNotice(reply: FastifyReply, format: AnswerFormat, text: string, stream: boolean) {
  if (!stream) return format.whole(text);
  return reply.type(format.streamType).send(format.piece(text) + format.end());
}

export interface AskedQuestion {
  question: string;
  mode: QueryMode;
  history: HistoryMessage[];
  /** The JSON format the answer must take: the model's JSON is sent as it is, without sources. */
  output?: StructuredOutput;
}

/**
 * Answers a question on the workspace: whole, or streamed, the answer's tokens as the model writes
 * them (the whole answer at once offline), then its sources, then the end. A failure once the
 * stream has opened is its last piece, as the format words one.
 */
export async function sendAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  workspace: ServedWorkspace,
  asked: AskedQuestion,
  format: AnswerFormat,
  stream: boolean,
) {
  const { queries } = workspace;
  const options = {
    mode: asked.mode,
    history: asked.history,
    ...(asked.output ? { structuredOutput: asked.output } : {}),
  };
  const call = { clientGone: clientGoneSignal(reply) };
  // A JSON answer stays the model's JSON: no sources or warnings after it.
  const shown = (result: QueryResult) => (asked.output ? result.answer : answerWithSources(result));
  if (!stream) {
    const result = await queries.run(asked.question, options, {}, call);
    return format.whole(shown(result), result);
  }
  reply.hijack();
  reply.raw.writeHead(200, { ...headersOf(reply.getHeaders()), "content-type": format.streamType });
  const write = (text: string) => {
    if (!reply.raw.destroyed) reply.raw.write(text);
  };
  let streamed = false;
  try {
    const result = await queries.run(
      asked.question,
      options,
      {
        onToken: (text) => {
          streamed = true;
          write(format.piece(text));
        },
      },
      call,
    );
    const rest = streamed ? shown(result).slice(result.answer.length) : shown(result);
    if (rest) write(format.piece(rest));
    write(format.end(result));
  } catch (error) {
    write(format.failure(streamFailure(request, error, "query_failed").error.message));
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
