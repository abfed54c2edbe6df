import type { KgragConfig } from "../config.js";
import type { GraphStore, VectorIndexStatus } from "../storage/graph-store.js";
import type { DocumentRecord, GraphCounts } from "../types.js";

export interface StatusReport {
  workspace: string;
  storage: KgragConfig["storage"];
  extractor: string;
  embedding: { model: string; dimension: number; kind: string };
  documents: DocumentRecord[];
  counts: GraphCounts;
  /** How each vector namespace is searched (exact or an HNSW file, its size and freshness). */
  vectorIndexes?: VectorIndexStatus[];
}

/** What the store holds: its documents, the graph totals and the state of its vector indexes. */
export async function storeContents(
  store: GraphStore,
): Promise<Pick<StatusReport, "documents" | "counts" | "vectorIndexes">> {
  return {
    documents: await store.listDocuments(),
    counts: await store.counts(),
    ...(store.vectorIndexStatus ? { vectorIndexes: await store.vectorIndexStatus() } : {}),
  };
}

/**
 * The models that built the workspace, as its first writer recorded them: what `kgrag status`
 * shows without constructing (or even loading) any model. Null before anything was written.
 */
export async function recordedModels(
  store: GraphStore,
): Promise<Pick<StatusReport, "extractor" | "embedding"> | null> {
  const model = await store.getMeta("embedding.model");
  const dimension = await store.getMeta("embedding.dimension");
  if (model === undefined || dimension === undefined) return null;
  return {
    extractor: (await store.getMeta("extractor")) ?? "unknown",
    embedding: {
      model,
      dimension: Number(dimension),
      kind: (await store.getMeta("embedding.kind")) ?? "unknown",
    },
  };
}
