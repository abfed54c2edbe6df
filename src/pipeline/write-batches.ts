import type { KgragServices } from "../services.js";

/** Batch sizes of the index steps' writes: Neo4j's are configured (config.ts, `neo4j`). */

/**
 * Documents per registration or finalize transaction on the embedded store, where a transaction
 * is cheap: the batch only bounds how long a stop request waits.
 */
const EMBEDDED_DOCUMENT_BATCH = 256;

type BatchServices = Pick<KgragServices, "store" | "config">;

/** Documents written per transaction by the per-document steps; Neo4j's is configured. */
export function documentBatchSize(services: BatchServices): number {
  if (services.store.kind !== "neo4j") return EMBEDDED_DOCUMENT_BATCH;
  return services.config.neo4j?.documentBatch ?? EMBEDDED_DOCUMENT_BATCH;
}

/** Chunks after which a registration transaction is cut; the embedded store has no such bound. */
export function registrationChunkLimit(services: BatchServices): number {
  if (services.store.kind !== "neo4j") return Number.POSITIVE_INFINITY;
  return services.config.neo4j?.documentBatchChunks ?? Number.POSITIVE_INFINITY;
}

/**
 * Vectors per write on the embedded store: one per embedding step (embed-graph.ts), its
 * transactions are cheap.
 */
const EMBEDDED_VECTOR_BATCH = 256;

/** Vectors written per transaction by the embedding steps. */
export function vectorWriteSize(services: BatchServices): number {
  if (services.store.kind !== "neo4j") return EMBEDDED_VECTOR_BATCH;
  return services.config.neo4j?.vectorBatch ?? EMBEDDED_VECTOR_BATCH;
}

/** Community reports saved per transaction on the embedded store. */
const EMBEDDED_REPORT_BATCH = 64;

/** Community reports saved per transaction as they are written. */
export function reportSaveSize(services: BatchServices): number {
  if (services.store.kind !== "neo4j") return EMBEDDED_REPORT_BATCH;
  return services.config.neo4j?.reportBatch ?? EMBEDDED_REPORT_BATCH;
}
