import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { HashingEmbedder } from "../../src/embedding/hashing-embedder.js";
import { countTokens } from "../../src/util/tokens.js";

/**
 * A real HTTP server on 127.0.0.1 speaking the OpenAI chat-completions and embeddings protocol,
 * scripted per call, so the LLM path (retries, timeouts, streaming, caching) is tested end to end
 * without any model.
 */

/** What one call answers: text, an HTTP error, silence, or text cut off mid-way. */
export type ScriptedReply =
  | {
      content: string;
      finishReason?: string;
      usage?: { promptTokens: number; completionTokens: number };
      /** Sent as `reasoning_content`, as some OpenAI-compatible servers do for reasoning models. */
      reasoning?: string;
    }
  | { status: number; headers?: Record<string, string>; body?: unknown }
  | { hang: true }
  /** Drops the connection without an answer, as a crashing or restarting server does. */
  | { reset: true }
  /** Sends the headers (and, when streaming, a first delta), then goes silent. */
  | { stall: true }
  | { truncate: true; content: string };

export interface ChatBody {
  model?: string;
  messages?: Array<{ role: string; content: string }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  response_format?: { type: string; json_schema?: { name: string; schema?: unknown; strict?: boolean } };
  [key: string]: unknown;
}

export interface ChatCall {
  /** The X-Kgrag-Stage header ("" when missing). */
  stage: string;
  body: ChatBody;
  headers: IncomingHttpHeaders;
  /** 0-based over all chat calls. */
  callIndex: number;
  /** 0-based over chat calls of this stage. */
  stageCallIndex: number;
}

export type ChatHandler = (call: ChatCall) => ScriptedReply | Promise<ScriptedReply>;

export interface EmbeddingsCall {
  input: string[];
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  callIndex: number;
}

export type EmbeddingsReply = { vectors: number[][] } | Exclude<ScriptedReply, { content: string }>;
/** Return undefined to get the default vectors. */
export type EmbeddingsHandler = (
  call: EmbeddingsCall,
) => EmbeddingsReply | undefined | Promise<EmbeddingsReply | undefined>;

export interface ScriptedServerOptions {
  chat?: ChatHandler;
  embeddings?: EmbeddingsHandler;
  /** Size of the default vectors when the request names no `dimensions` (default 64). */
  embeddingDimension?: number;
  /**
   * Fixed delay before every answer, for benchmarks (default 0): the answer leaves this long after
   * the request arrived, the server's own work on it (the handler, counting usage) inside the delay
   * rather than added to it, as a model's fixed latency would be.
   */
  latencyMs?: number;
  /** Send no token usage, as some local servers do. */
  omitUsage?: boolean;
}

export interface RecordedRequest {
  path: string;
  stage: string;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  receivedAt: number;
  /** When the response closed (Date.now()); undefined while it is open. */
  answeredAt?: number;
}

export interface ScriptedServer {
  /** Pass as baseURL, e.g. http://127.0.0.1:43210/v1 */
  readonly baseURL: string;
  readonly requests: RecordedRequest[];
  /** Requests per X-Kgrag-Stage value (embeddings count under "embed"). */
  countByStage(): Record<string, number>;
  count(stage: string): number;
  readonly inFlight: number;
  readonly maxInFlight: number;
  /** Stops listening and destroys open sockets, hung requests included. */
  close(): Promise<void>;
}

/** Default vectors: the offline hashing embedder, so similar texts stay close through the server. */
export function defaultVectors(texts: string[], dimension: number): number[][] {
  const embedder = new HashingEmbedder(dimension);
  return texts.map((text) => embedder.embedOne(text));
}

/** The text of the last user message of a chat call (where prompts put the chunk or question). */
export function lastUserMessage(call: ChatCall): string {
  const users = (call.body.messages ?? []).filter((m) => m.role === "user");
  return users.at(-1)?.content ?? "";
}

type Responder = ScriptedReply | ScriptedReply[] | ChatHandler;

/**
 * Builds a chat handler from stage → responder. An array answers the n-th call of its stage with
 * its n-th reply (the last one repeats). Unscripted stages get a 400 naming the stage.
 */
export function scriptByStage(script: Record<string, Responder>, fallback?: ChatHandler): ChatHandler {
  return (call) => {
    const responder = script[call.stage];
    if (responder === undefined) {
      return fallback ? fallback(call) : clientError(`scripted server: no script for stage "${call.stage}"`);
    }
    if (typeof responder === "function") return responder(call);
    if (!Array.isArray(responder)) return responder;
    const reply = responder[Math.min(call.stageCallIndex, responder.length - 1)];
    return reply ?? clientError(`scripted server: empty script for stage "${call.stage}"`);
  };
}

/** A non-retryable error, so a missing script fails a test fast and says why. */
function clientError(message: string): ScriptedReply {
  return { status: 400, body: { error: { message, type: "invalid_request_error" } } };
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString("utf8");
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

type Usage = { promptTokens: number; completionTokens: number };

function usageFor(body: ChatBody, content: string, scripted?: Usage) {
  const prompt_tokens =
    scripted?.promptTokens ?? countTokens((body.messages ?? []).map((m) => m.content).join("\n"));
  const completion_tokens = scripted?.completionTokens ?? countTokens(content);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

/** Splits an answer into small stream deltas (word by word, spaces kept). */
function deltas(content: string): string[] {
  return content.match(/\s*\S+\s*/g) ?? (content ? [content] : []);
}

interface Answer {
  content: string;
  finish: string;
  usage?: Usage;
  reasoning?: string;
}

function answerChat(
  res: ServerResponse,
  body: ChatBody,
  answer: Answer,
  usage: ReturnType<typeof usageFor> | undefined,
) {
  const { content, finish } = answer;
  const base = { id: "chatcmpl-scripted", created: Math.floor(Date.now() / 1000), model: body.model ?? "" };
  if (!body.stream) {
    const message = { role: "assistant", content, reasoning_content: answer.reasoning };
    const choices = [{ index: 0, message, finish_reason: finish }];
    sendJson(res, 200, { ...base, object: "chat.completion", choices, usage });
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const event = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
  const chunk = (delta: object, finish_reason: string | null) =>
    event({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason }] });
  chunk({ role: "assistant", content: "" }, null);
  for (const piece of deltas(answer.reasoning ?? "")) chunk({ reasoning_content: piece }, null);
  for (const piece of deltas(content)) chunk({ content: piece }, null);
  chunk({}, finish);
  if (usage && body.stream_options?.include_usage) {
    event({ ...base, object: "chat.completion.chunk", choices: [], usage });
  }
  res.end("data: [DONE]\n\n");
}

/** Starts the server on an ephemeral port. */
export async function startScriptedOpenAI(options: ScriptedServerOptions = {}): Promise<ScriptedServer> {
  // Load the tokenizer now, not inside the first answer where it would eat a short client timeout.
  countTokens("warm up");
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let inFlight = 0;
  let maxInFlight = 0;
  let chatCalls = 0;
  let embeddingCalls = 0;
  const stageCalls = new Map<string, number>();

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  /** Answers an error, a hang or nothing (undefined) for the caller to answer itself. */
  function answerSpecial(res: ServerResponse, reply: EmbeddingsReply | ScriptedReply): boolean {
    if ("hang" in reply) return true;
    if ("reset" in reply) {
      res.socket?.destroy();
      return true;
    }
    if ("status" in reply) {
      const body = reply.body ?? {
        error: { message: `scripted HTTP ${reply.status}`, type: "server_error" },
      };
      sendJson(res, reply.status, body, reply.headers);
      return true;
    }
    return false;
  }

  /** Waits out what is left of the latency of a request received at `receivedAt`. */
  const latencyAfter = (receivedAt: number) =>
    options.latencyMs ? wait(Math.max(0, receivedAt + options.latencyMs - Date.now())) : Promise.resolve();

  async function handleChat(req: IncomingMessage, res: ServerResponse, record: RecordedRequest) {
    const handler = options.chat ?? (() => clientError("scripted server: no chat handler configured"));
    const stageCallIndex = stageCalls.get(record.stage) ?? 0;
    stageCalls.set(record.stage, stageCallIndex + 1);
    const body = record.body as ChatBody;
    const reply = await handler({
      stage: record.stage,
      body,
      headers: req.headers,
      callIndex: chatCalls++,
      stageCallIndex,
    });
    if ("truncate" in reply) {
      const cut = reply.content.slice(0, Math.max(1, Math.floor(reply.content.length * 0.6)));
      return answerAfterLatency(res, record, body, { content: cut, finish: "length" });
    }
    if ("content" in reply) {
      const { content, finishReason, usage, reasoning } = reply;
      return answerAfterLatency(res, record, body, {
        content,
        finish: finishReason ?? "stop",
        usage,
        reasoning,
      });
    }
    await latencyAfter(record.receivedAt);
    if (answerSpecial(res, reply)) return;
    res.writeHead(200, { "content-type": body.stream ? "text/event-stream" : "application/json" });
    if (body.stream)
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "…" } }] })}\n\n`);
  }

  /** The answer's usage is counted before the latency runs out, so the answer leaves on time. */
  async function answerAfterLatency(
    res: ServerResponse,
    record: RecordedRequest,
    body: ChatBody,
    answer: Answer,
  ) {
    const usage = options.omitUsage ? undefined : usageFor(body, answer.content, answer.usage);
    await latencyAfter(record.receivedAt);
    answerChat(res, body, answer, usage);
  }

  async function handleEmbeddings(req: IncomingMessage, res: ServerResponse, record: RecordedRequest) {
    const raw = record.body.input;
    const input = Array.isArray(raw) ? raw.map(String) : [String(raw ?? "")];
    const call = { input, body: record.body, headers: req.headers, callIndex: embeddingCalls++ };
    const reply = (await options.embeddings?.(call)) ?? {
      vectors: defaultVectors(input, Number(record.body.dimensions ?? options.embeddingDimension ?? 64)),
    };
    const tokens = "vectors" in reply ? input.reduce((sum, text) => sum + countTokens(text), 0) : 0;
    await latencyAfter(record.receivedAt);
    if (answerSpecial(res, reply) || !("vectors" in reply)) return;
    const data = reply.vectors.map((embedding, index) => ({ object: "embedding", index, embedding }));
    const usage = { prompt_tokens: tokens, total_tokens: tokens };
    sendJson(res, 200, { object: "list", data, model: record.body.model ?? "", usage });
  }

  async function route(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? "").split("?")[0] ?? "";
    const stage = String(req.headers["x-kgrag-stage"] ?? "");
    const record: RecordedRequest = {
      path,
      stage,
      body: await readJson(req),
      headers: req.headers,
      receivedAt: Date.now(),
    };
    requests.push(record);
    res.on("close", () => {
      record.answeredAt = Date.now();
    });
    if (req.method === "POST" && path === "/v1/chat/completions") return handleChat(req, res, record);
    if (req.method === "POST" && path === "/v1/embeddings") return handleEmbeddings(req, res, record);
    await latencyAfter(record.receivedAt);
    sendJson(res, 404, { error: { message: `scripted server: no route ${req.method} ${path}` } });
  }

  const server = createServer((req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on("close", () => {
      inFlight -= 1;
    });
    route(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `scripted server: ${String(error)}` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    countByStage() {
      const counts: Record<string, number> = {};
      for (const r of requests) counts[r.stage] = (counts[r.stage] ?? 0) + 1;
      return counts;
    },
    count(stage) {
      return requests.filter((r) => r.stage === stage).length;
    },
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
