import type { KgragConfig } from "../config.js";
import { tokenCost } from "../llm/usage-cost.js";

/** Embedding input tokens at the configured `embedding.price`; 0 when none is configured. */
export function embeddingCost(config: KgragConfig, tokens: number): number {
  return tokenCost(config.embedding?.price, tokens, 0);
}
