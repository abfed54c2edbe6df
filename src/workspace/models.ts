import type { KgragConfig } from "../config.js";
import type { Embedder } from "../embedding/embedder.js";
import { withUsageCounted } from "../embedding/usage-counted-embedder.js";
import { CachedChatModel } from "../llm/cached-chat.js";
import type { ChatModel } from "../llm/chat-model.js";
import { createModels } from "../llm/model-factory.js";
import type { UsageTracker } from "../llm/usage.js";
import type { GraphStore } from "../storage/graph-store.js";
import { recordRetry, TracedChatModel } from "../telemetry/traced-chat.js";
import { recordedEmbedding } from "./embedding-guard.js";

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
  given: { chat?: ChatModel | null; embedder?: Embedder },
): Promise<{ chat: ChatModel | null; embedder: Embedder }> {
  const configured =
    given.chat !== undefined && given.embedder
      ? null
      : await createModels(config, store, usage, { onRetry: recordRetry }, await recordedEmbedding(store));
  const chat =
    given.chat === undefined
      ? (configured?.chat ?? null)
      : given.chat && new CachedChatModel(given.chat, store, usage);
  const embedder = given.embedder ? withUsageCounted(given.embedder, usage) : configured?.embedder;
  if (!embedder) throw new Error("No embedder available");
  return { chat: chat && new TracedChatModel(chat), embedder };
}
