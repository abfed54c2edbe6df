import type { ChunkRecord, Extraction } from "../types.js";

/**
 * `partial`: every answer was cut short, so the extraction holds only what came before the cut.
 * It is merged, but the chunk is marked partial and asked again on the next run.
 */
export type ExtractionOutcome =
  | { ok: true; extraction: Extraction; partial?: PartialExtraction }
  | { ok: false; error: string; rawOutput: string | null };

export interface PartialExtraction {
  reason: string;
  rawOutput: string;
}

export interface ExtractionContext {
  title: string;
  /** The run's stop: work queued for a chunk is dropped (the chunk stays pending) once it aborts. */
  signal?: AbortSignal;
}

/** What a caller knows of an extraction run as it starts. */
export interface ExtractionRun {
  /** Documents with chunks to extract (a lower bound of the run's chunks). */
  documents: number;
}

/**
 * Pulls entities and relationships out of one chunk. "llm" asks a chat model (plus gleaning);
 * "offline-nlp" is the built-in NLP extractor that needs no model. Failures are returned, never
 * thrown, so one bad chunk never aborts a run.
 */
export interface Extractor {
  readonly kind: "llm" | "offline-nlp";
  /** Chunks worth having in flight at once; by default twice the chat model's concurrency. */
  readonly inFlight?: number;
  /**
   * Called as an extraction run starts (an extractor may serve many runs), with the number of
   * documents the run will extract when the caller knows it (each has at least one chunk).
   */
  beginRun?(run?: ExtractionRun): void;
  /**
   * Runs once what reading the first replies will need (schema checks compiled on first use), in
   * the wait for the first round's replies rather than on the way to the next requests.
   */
  warmUp?(): void;
  extract(chunk: ChunkRecord, context: ExtractionContext): Promise<ExtractionOutcome>;
}
