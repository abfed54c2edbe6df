import type { KgragConfig } from "../config.js";

/** Embedding input tokens at the configured `embedding.price`; 0 when none is configured. */
export function embeddingCost(config: KgragConfig, tokens: number): number {
  const price = config.embedding?.price;
  return price ? (tokens * price.inputPerMillion) / 1e6 : 0;
}
