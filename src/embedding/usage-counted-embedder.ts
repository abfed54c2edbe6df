import type { EmbeddingUsageSink } from "../llm/usage.js";
import { countTokens } from "../util/tokens.js";
import type { Embedder } from "./embedder.js";

/**
 * A caller's own embedder (`createKgrag({ embedder })`) counted in the workspace's usage as a
 * configured one counts itself: the requests each answered call sent (`requestsFor`, else one) and
 * their input tokens, counted as the dry run counts them since an Embedder reports none. The
 * offline hashing embedder sends nothing, so it is left as it is, as the configured one is.
 */
export function withUsageCounted(embedder: Embedder, usage: EmbeddingUsageSink): Embedder {
  if (embedder.kind === "hashing") return embedder;
  return {
    model: embedder.model,
    dimension: embedder.dimension,
    kind: embedder.kind,
    embed: async (texts) => {
      const vectors = await embedder.embed(texts);
      if (texts.length > 0) {
        const tokens = texts.reduce((sum, text) => sum + countTokens(text), 0);
        usage.recordEmbedding(embedder.requestsFor?.(texts.length) ?? 1, tokens);
      }
      return vectors;
    },
  };
}
