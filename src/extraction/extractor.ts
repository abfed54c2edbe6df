import type { ChunkRecord, Extraction } from "../types.js";

export type ExtractionOutcome =
  | { ok: true; extraction: Extraction }
  | { ok: false; error: string; rawOutput: string | null };

/**
 * Pulls entities and relationships out of one chunk. "llm" asks a chat model (plus gleaning);
 * "offline-nlp" is the built-in NLP extractor that needs no model. Failures are returned, never
 * thrown, so one bad chunk never aborts a run.
 */
export interface Extractor {
  readonly kind: "llm" | "offline-nlp";
  extract(chunk: ChunkRecord, context: { title: string }): Promise<ExtractionOutcome>;
}
