import { resolve } from "node:path";
import { loadConfig } from "../config.js";
import type { CreateKgragOptions } from "../kgrag.js";
import { usePromptOverrides } from "../llm/prompts.js";
import { UsageTracker } from "../llm/usage.js";
import { HttpReranker } from "../rerank/reranker.js";
import type { KgragServices } from "../services.js";
import { silentProgress } from "../util/progress.js";
import { checkEmbeddingModel } from "./embedding-guard.js";
import { openModels } from "./models.js";
import { openStore } from "./store.js";

/**
 * A workspace's services (settings, store, models, reranker) and nothing else: what a query needs.
 * createKgrag builds the indexing components and the facade on top; a reader that only queries
 * opens this alone and so never loads the indexing pipelines. The caller closes the store.
 */
export async function openServices(options: CreateKgragOptions = {}): Promise<KgragServices> {
  const { config, file: configFile } = loadConfig(options.env ?? process.env, options.config ?? {});
  // Checked before anything opens: a broken prompt override stops the start, not the 500th chunk.
  usePromptOverrides(config.prompts);
  const store = options.store ?? (await openStore(config, resolve(config.workspace), options.progress));
  const usage = new UsageTracker();
  try {
    const models = await openModels(config, store, usage, options);
    await checkEmbeddingModel(store, models.embedder);
    return {
      config,
      store,
      embedder: models.embedder,
      chat: models.chat,
      usage,
      progress: options.progress ?? silentProgress,
      reranker: options.reranker ?? (config.rerank ? new HttpReranker(config.rerank) : null),
      configFile,
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
