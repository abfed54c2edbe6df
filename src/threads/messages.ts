import type { ClusterGraph, Clustering, ClusterOptions } from "../community/cluster.js";
import type { ExtractiveReportsInput, WrittenReport } from "../community/extractive-reports.js";
import type { OfflineExtractionConfig } from "../config.js";
import type { Extraction } from "../types.js";

/** One chunk for the NLP extractor (see OfflineNlpExtractor.extractText), with the run's settings. */
export interface ExtractRequest {
  text: string;
  title: string;
  startsInside: boolean;
  options: OfflineExtractionConfig;
}

/** What the main thread asks the built-ins' worker thread (offline-worker.ts) to do. */
export type ToBuiltInWorker =
  | ({ id: number; kind: "extract" } & ExtractRequest)
  | { id: number; kind: "embed"; texts: string[]; dimension: number }
  | { id: number; kind: "cluster"; graph: ClusterGraph; options: ClusterOptions }
  | { id: number; kind: "open reports"; input: ExtractiveReportsInput }
  | { id: number; kind: "write reports"; ids: string[] };

/**
 * Its answers, by request id. Vectors come back as one flat buffer (texts x dimension, row after
 * row), moved rather than copied; the numbers are the in-process embedder's, bit for bit.
 */
export type FromBuiltInWorker =
  | { id: number; kind: "extract"; extraction: Extraction }
  | { id: number; kind: "embed"; vectors: Float64Array }
  | { id: number; kind: "cluster"; clustering: Clustering }
  | { id: number; kind: "open reports" }
  | { id: number; kind: "write reports"; reports: WrittenReport[] }
  | { id: number; kind: "error"; message: string };
