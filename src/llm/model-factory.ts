import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { KgragConfig } from "../config.js";
import { ConfigError } from "../config-error.js";
import type { Embedder } from "../embedding/embedder.js";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import { LangChainEmbedder, type LangChainEmbedderOptions } from "../embedding/langchain-embedder.js";
import { sharedBuiltInThread, ThreadedHashingEmbedder } from "../threads/threaded-built-ins.js";
import { EmbeddingMismatchError, mismatchMessage } from "../workspace/embedding-guard.js";
import { CachedChatModel, type LlmCache } from "./cached-chat.js";
import { type ChatModel, STAGES, type Stage } from "./chat-model.js";
import { LangChainChatModel, type LangChainChatOptions } from "./langchain-chat.js";
import type { RetryTuning } from "./retry.js";
import {
  clientKey,
  STAGE_CONFIG_KEYS,
  type StageRoute,
  StageRoutedChat,
  stageSettings,
} from "./stage-models.js";
import type { UsageTracker } from "./usage.js";

export interface Models {
  /** Null when no LLM is configured: each stage then uses its offline built-in. */
  chat: ChatModel | null;
  embedder: Embedder;
}

/**
 * One client per distinct stage setting (most stages share the default model's), each behind the
 * LLM cache under its own model name, and one rate limiter per endpoint and model. The OpenAI
 * client is loaded only when an endpoint is configured: offline runs never need it.
 */
async function configuredChat(
  config: KgragConfig,
  cache: LlmCache,
  usage: UsageTracker,
  tuning: RetryTuning,
): Promise<ChatModel | null> {
  if (!config.llm) return null;
  requireNamedKey(config.llm, "llm");
  // The OpenAI client (and the limiter, which reads its errors) load only when a model is configured.
  const { OpenAIChatModel } = await import("./openai-chat.js");
  const { RateLimiters } = await import("./rate-limiter.js");
  const limiters = new RateLimiters();
  const clients = new Map<string, ChatModel>();
  const routes = {} as Record<Stage, StageRoute>;
  for (const stage of STAGES) {
    const settings = requireModel(stageSettings(config, stage) ?? config.llm, stageKeyOf(stage));
    requireNamedKey(settings, `the model of stage ${stage}`);
    const key = clientKey(settings);
    let chat = clients.get(key);
    if (!chat) {
      chat = new CachedChatModel(new OpenAIChatModel(settings, tuning, limiters.for(settings)), cache, usage);
      clients.set(key, chat);
    }
    routes[stage] = { chat, settings };
  }
  return new StageRoutedChat(routes, requireModel(config.llm, "llm").model);
}

/** Where a stage's model is set: `stages.<key>.model`, else `llm.model`. */
function stageKeyOf(stage: Stage): string {
  return `llm (stage ${stage}, or stages.${STAGE_CONFIG_KEYS[stage]})`;
}

const MODEL_SOURCES: Record<"llm" | "embedding", string> = {
  llm: "llm.model or KGRAG_LLM_MODEL, or give createKgrag a chat model object ({ chat })",
  embedding:
    "embedding.model or KGRAG_EMBEDDING_MODEL, or give createKgrag an embedder object ({ embedder })",
};

/**
 * kgrag's own clients need a model name; a model object given to createKgrag does not, so the
 * config may leave it out (and still tune the rest): refused here, only when a client is made.
 */
function requireModel<T extends { model?: string | undefined }>(
  settings: T,
  where: string,
): T & { model: string } {
  if (settings.model) return { ...settings, model: settings.model };
  const kind = where.startsWith("embedding") ? "embedding" : "llm";
  throw new ConfigError(`${where}: no model is named, so kgrag cannot call it. Set ${MODEL_SOURCES[kind]}.`);
}

async function configuredEmbedder(
  config: KgragConfig,
  tuning: RetryTuning,
  usage: UsageTracker,
  recorded?: RecordedEmbedding,
): Promise<Embedder> {
  if (!config.embedding) {
    if (!config.builtInThread.enabled) return new HashingEmbedder(config.hashingDimension);
    const thread = sharedBuiltInThread(config.builtInThread);
    return new ThreadedHashingEmbedder(thread, config.builtInThread, config.hashingDimension);
  }
  const embedding = requireModel(config.embedding, "embedding");
  requireNamedKey(embedding, "embedding");
  const { OpenAIEmbedder } = await import("../embedding/openai-embedder.js");
  return OpenAIEmbedder.create(embedding, tuning, usage, knownDimension(embedding, recorded));
}

/** The workspace's embedding model and dimension, as its first writer recorded them. */
export interface RecordedEmbedding {
  model: string;
  dimension: number;
}

/**
 * The dimension to use without asking the endpoint: the recorded one when the configured model is
 * the recorded model. Another model is refused here, before any request: its probe would only
 * find out what the model name already says, after retries when the endpoint is down.
 */
function knownDimension(embedding: { model: string; dimension?: number }, recorded?: RecordedEmbedding) {
  if (!recorded) return undefined;
  if (recorded.model !== embedding.model) {
    throw new EmbeddingMismatchError(mismatchMessage(recorded, embedding));
  }
  return recorded.dimension;
}

/**
 * An endpoint whose `apiKeyEnv` names a variable that is not set would be sent requests with no
 * key, each refused (or worse, accepted by a gateway as anonymous): refused here, before any.
 */
function requireNamedKey(endpoint: { apiKey?: string; apiKeyEnv?: string }, where: string): void {
  if (endpoint.apiKeyEnv === undefined || endpoint.apiKey) return;
  throw new ConfigError(
    `${where}: apiKeyEnv names the environment variable ${endpoint.apiKeyEnv}, which is not set. ` +
      "Set it to the API key, or remove apiKeyEnv for a server that needs no key.",
  );
}

/**
 * The models a workspace uses: the OpenAI-compatible chat model behind the LLM cache when
 * `config.llm` is set, and the OpenAI-compatible embedder or else the offline hashing one. Both
 * report what they send to `usage`.
 */
export async function createModels(
  config: KgragConfig,
  cache: LlmCache,
  usage: UsageTracker,
  tuning: RetryTuning = {},
  recorded?: RecordedEmbedding,
  /** False when the caller brings its own chat model: none is made from `llm` (which may name none). */
  makeChat = true,
): Promise<Models> {
  return {
    chat: makeChat ? await configuredChat(config, cache, usage, tuning) : null,
    embedder: await configuredEmbedder(config, tuning, usage, recorded),
  };
}

export interface LangChainModels {
  chat?: BaseChatModel;
  chatOptions?: LangChainChatOptions;
  embeddings?: EmbeddingsInterface;
  embeddingOptions?: LangChainEmbedderOptions;
}

/**
 * The same from LangChain objects, for library users who already hold a configured model. A
 * missing one comes from the config as in createModels (so possibly offline or hashing).
 */
export async function fromLangChain(
  models: LangChainModels,
  config: KgragConfig,
  cache: LlmCache,
  usage: UsageTracker,
  tuning: RetryTuning = {},
): Promise<Models> {
  const chat = models.chat
    ? new CachedChatModel(new LangChainChatModel(models.chat, models.chatOptions), cache, usage)
    : await configuredChat(config, cache, usage, tuning);
  const embedder = models.embeddings
    ? await LangChainEmbedder.create(models.embeddings, models.embeddingOptions, usage)
    : await configuredEmbedder(config, tuning, usage);
  return { chat, embedder };
}
