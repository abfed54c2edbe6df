/** The pipeline stages that call a chat model; sent as the X-Kgrag-Stage header and used for usage totals. */
export const STAGES = [
  "extract",
  "glean",
  "summarize",
  "keywords",
  "report",
  "global-map",
  "global-reduce",
  "answer",
  "text2cypher",
  "resolve",
] as const;
export type Stage = (typeof STAGES)[number];

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface JsonSchemaSpec {
  name: string;
  schema: Record<string, unknown>;
}

export interface ChatRequest {
  stage: Stage;
  messages: ChatMessage[];
  /** Ask for structured output (response_format json_schema) where the endpoint supports it. */
  jsonSchema?: JsonSchemaSpec;
  temperature?: number;
  maxTokens?: number;
  /** Called with each text delta when the caller wants streaming. */
  onToken?: (delta: string) => void;
  /**
   * Whether an answer is usable (e.g. it parses). The LLM cache stores only accepted answers and
   * asks again instead of replaying a cached one this rejects, so a malformed reply never sticks.
   */
  acceptAnswer?: (text: string) => boolean;
  /** Aborts the request (and any queued attempt or retry): set when the caller stops the run. */
  signal?: AbortSignal;
  /**
   * Continues a conversation already under way (a gleaning round, a corrective retry): waits for a
   * request slot ahead of requests that start a new one, so work already started finishes first.
   */
  followUp?: boolean;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ChatResponse {
  text: string;
  usage: TokenUsage;
  /**
   * True when the answer came from the workspace LLM cache (kgrag's cache sets it; a model of the
   * caller's own leaves it out).
   */
  cached?: boolean;
  /**
   * True when the model stopped at its output limit (finish_reason "length"): the text is cut
   * short, even if JSON repair can close it. Such an answer is never cached.
   */
  truncated?: boolean;
}

/** Any chat model kgrag can use: the OpenAI-compatible client, a LangChain model, or a test double. */
export interface ChatModel {
  /** Model name, part of the cache key. */
  readonly model: string;
  chat(request: ChatRequest): Promise<ChatResponse>;
  /** The model a request of this stage goes to, where stages have their own (config `stages`). */
  modelFor?(stage: Stage): string;
}

/** Every request through the returned model carries `signal`: a run's stop reaches each model call. */
export function withAbortSignal(chat: ChatModel, signal: AbortSignal): ChatModel {
  return { model: chat.model, chat: (request) => chat.chat({ ...request, signal }) };
}
