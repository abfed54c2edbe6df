import type { KgragConfig } from "./config.js";
import type { Embedder } from "./embedding/embedder.js";
import type { ChatModel } from "./llm/chat-model.js";
import type { UsageTracker } from "./llm/usage.js";
import type { Reranker } from "./rerank/reranker.js";
import type { GraphStore } from "./storage/graph-store.js";
import type { ProgressReporter } from "./util/progress.js";

/**
 * What every pipeline step, query mode and command receives. `chat` is null when no LLM is
 * configured: each stage then uses its offline built-in (and says so).
 */
export interface KgragServices {
  config: KgragConfig;
  store: GraphStore;
  embedder: Embedder;
  /** Already wrapped with the workspace LLM cache and usage tracking. */
  chat: ChatModel | null;
  usage: UsageTracker;
  progress: ProgressReporter;
  /** Reorders candidate passages of naive, local and mix queries; absent when none is configured. */
  reranker?: Reranker | null;
  /**
   * The config file the settings were read from (LoadedConfig.file), if any: a backup strips its
   * secrets when it lies in the workspace, whatever its name.
   */
  configFile?: string | null;
}
