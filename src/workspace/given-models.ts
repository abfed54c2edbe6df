import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { Embedder } from "../embedding/embedder.js";
import { LangChainEmbedder } from "../embedding/langchain-embedder.js";
import { withUsageCounted } from "../embedding/usage-counted-embedder.js";
import type { ChatModel } from "../llm/chat-model.js";
import { LangChainChatModel } from "../llm/langchain-chat.js";
import type { EmbeddingUsageSink } from "../llm/usage.js";

/**
 * The models a caller may hand createKgrag: kgrag's own interfaces, or LangChain's chat models and
 * embeddings objects as they are (ChatOpenAI, ChatOllama, OpenAIEmbeddings...), adapted here.
 */
export type GivenChatModel = ChatModel | BaseChatModel;
export type GivenEmbedder = Embedder | EmbeddingsInterface;

export const GIVEN_CHAT_SHAPE =
  "a ChatModel ({ model, chat(request) }) or a LangChain chat model (ChatOpenAI, ChatOllama...)";
export const GIVEN_EMBEDDER_SHAPE =
  "an Embedder ({ model, dimension, kind, embed(texts) }) or a LangChain embeddings object (OpenAIEmbeddings...)";

function has(value: unknown, key: string, type: "function" | "string" | "number"): boolean {
  return typeof value === "object" && value !== null && typeof Reflect.get(value, key) === type;
}

function isChatModel(value: unknown): value is ChatModel {
  return has(value, "model", "string") && has(value, "chat", "function");
}

/** LangChain's Runnable chat models: `invoke`, and the `_llmType` every LangChain language model has. */
function isLangChainChatModel(value: unknown): value is BaseChatModel {
  return has(value, "invoke", "function") && has(value, "_llmType", "function");
}

function isEmbedder(value: unknown): value is Embedder {
  return (
    has(value, "model", "string") && has(value, "dimension", "number") && has(value, "embed", "function")
  );
}

function isLangChainEmbeddings(value: unknown): value is EmbeddingsInterface {
  return has(value, "embedDocuments", "function") && has(value, "embedQuery", "function");
}

export function isGivenChatModel(value: unknown): value is GivenChatModel {
  return isChatModel(value) || isLangChainChatModel(value);
}

export function isGivenEmbedder(value: unknown): value is GivenEmbedder {
  return isEmbedder(value) || isLangChainEmbeddings(value);
}

/** The caller's chat model as a kgrag ChatModel: a LangChain one goes through LangChainChatModel. */
export function adaptChatModel(given: GivenChatModel): ChatModel {
  return isChatModel(given) ? given : new LangChainChatModel(given);
}

/**
 * The caller's embedder as a kgrag Embedder. A LangChain object is adapted with the run's usage
 * sink (so index summaries count its requests) and, when the workspace recorded this model, its
 * recorded dimension (no probe request); otherwise one probe call learns the dimension.
 */
export async function adaptEmbedder(
  given: GivenEmbedder,
  usage: EmbeddingUsageSink,
  recorded: { model: string; dimension: number } | undefined,
): Promise<Embedder> {
  // A caller's own embedder is counted as a configured one counts itself; LangChain's, by its adapter.
  if (isEmbedder(given)) return withUsageCounted(given, usage);
  const model = LangChainEmbedder.modelNameOf(given);
  const dimension = recorded?.model === model ? recorded.dimension : undefined;
  return LangChainEmbedder.create(given, { model, ...(dimension ? { dimension } : {}) }, usage);
}
