import type { KgragConfig, Price } from "../config.js";
import type { Stage } from "./chat-model.js";
import { stageSettings } from "./stage-models.js";
import type { StageUsage } from "./usage.js";

/** A stage's usage with what it cost at the stage's configured `price` (0 without one). */
export type PricedStageUsage = StageUsage & { cost: number };

/** Tokens at a price per million; 0 without a price. */
export function tokenCost(price: Price | undefined, inputTokens: number, outputTokens: number): number {
  return price ? (inputTokens * price.inputPerMillion + outputTokens * price.outputPerMillion) / 1e6 : 0;
}

/** Each stage's usage priced at that stage's model price (config `llm.price`, `stages.*.price`). */
export function pricedStages(
  config: KgragConfig,
  usage: Partial<Record<Stage, StageUsage>>,
): Partial<Record<Stage, PricedStageUsage>> {
  const priced: Partial<Record<Stage, PricedStageUsage>> = {};
  for (const [stage, used] of Object.entries(usage) as [Stage, StageUsage][]) {
    const price = stageSettings(config, stage)?.price;
    priced[stage] = { ...used, cost: tokenCost(price, used.promptTokens, used.completionTokens) };
  }
  return priced;
}

/** The cost of every stage together. */
export function totalCost(stages: Partial<Record<Stage, PricedStageUsage>>): number {
  return Object.values(stages).reduce((sum, stage) => sum + (stage?.cost ?? 0), 0);
}
