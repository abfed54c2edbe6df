import type { KgragConfig } from "../config.js";
import type { Embedder } from "../embedding/embedder.js";
import { CachedChatModel } from "../llm/cached-chat.js";
import type { ChatModel } from "../llm/chat-model.js";
import { createModels } from "../llm/model-factory.js";
import type { UsageTracker } from "../llm/usage.js";
import type { GraphStore } from "../storage/graph-store.js";
import { recordRetry, TracedChatModel } from "../telemetry/traced-chat.js";
import { recordedEmbedding } from "./embedding-guard.js";
import { adaptChatModel, adaptEmbedder, type GivenChatModel, type GivenEmbedder } from "./given-models.js";

/**
 * The configured models, or those the caller brought. A caller's chat model is wrapped with the
 * workspace cache and usage tracking like a configured one, so re-runs repeat no call either way;
 * either is traced outside the cache, so a span says whether the cache answered. A caller's
 * embedder is counted in the usage as a configured one counts itself.
 */
export async function openModels(
  config: KgragConfig,
  store: GraphStore,
  usage: UsageTracker,
  given: { chat?: GivenChatModel | null; embedder?: GivenEmbedder },
): Promise<{ chat: ChatModel | null; embedder: Embedder }> {
  const recorded = await recordedEmbedding(store);
  const configured =
    given.chat !== undefined && given.embedder
      ? null
      : await createModels(
          config,
          store,
          usage,
          { onRetry: recordRetry },
          recorded,
          given.chat === undefined,
        );
  const chat =
    given.chat === undefined
      ? (configured?.chat ?? null)
      : given.chat && new CachedChatModel(adaptChatModel(given.chat), store, usage);
  const embedder = given.embedder
    ? await adaptEmbedder(given.embedder, usage, recorded)
    : configured?.embedder;
  if (!embedder) throw new Error("No embedder available");
  return { chat: chat && new TracedChatModel(chat), embedder };
}
