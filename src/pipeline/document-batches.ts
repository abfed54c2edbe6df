import type { KgragServices } from "../services.js";

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

/** `items` cut into consecutive slices of at most `size`. */
export function slices<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}
