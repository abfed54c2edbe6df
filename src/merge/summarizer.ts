/**
 * Condenses the description fragments of an entity or relationship once they pass the thresholds.
 * "llm" asks the model (map-reduce when the fragments do not fit one call); "extractive" is the
 * offline built-in that picks representative sentences.
 */
export interface DescriptionSummarizer {
  readonly kind: "llm" | "extractive";
  summarize(subject: { kind: "entity" | "relationship"; name: string }, fragments: string[]): Promise<string>;
}
