import type { Embedder } from "../embedding/embedder.js";
import type { GraphStore } from "../storage/graph-store.js";

export class EmbeddingMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EmbeddingMismatchError";
  }
}

/**
 * A workspace is tied to the embedding model that built its vectors. Opening it with another model
 * or dimension would compare incomparable vectors, so it is refused with a clear message instead.
 * Only reads: the first writer records the model (recordWorkspaceModels), so a reader writes nothing.
 */
export async function checkEmbeddingModel(store: GraphStore, embedder: Embedder): Promise<void> {
  const recorded = await recordedEmbedding(store);
  if (!recorded) return;
  if (recorded.model !== embedder.model || recorded.dimension !== embedder.dimension) {
    throw new EmbeddingMismatchError(mismatchMessage(recorded, embedder));
  }
}

/** The workspace's embedding model and dimension as recorded, or undefined before the first write. */
export async function recordedEmbedding(
  store: Pick<GraphStore, "getMeta">,
): Promise<{ model: string; dimension: number } | undefined> {
  const model = await store.getMeta("embedding.model");
  const dimension = await store.getMeta("embedding.dimension");
  if (model === undefined || dimension === undefined) return undefined;
  return { model, dimension: Number(dimension) };
}

/** What the workspace was built with against what is configured (a dimension not known yet is left out). */
export function mismatchMessage(
  recorded: { model: string; dimension: number },
  configured: { model: string; dimension?: number },
): string {
  const dimension = configured.dimension === undefined ? "" : ` (dimension ${configured.dimension})`;
  return (
    `This workspace was indexed with embedding model "${recorded.model}" (dimension ${recorded.dimension}), ` +
    `but the configured one is "${configured.model}"${dimension}. ` +
    "Configure the original model (KGRAG_EMBEDDING_MODEL / KGRAG_EMBEDDING_DIM), or index into a new workspace."
  );
}

/** Called by a writer before it writes: records the embedding model and the extractor in use. */
export async function recordWorkspaceModels(
  store: GraphStore,
  embedder: Embedder,
  extractorKind: string,
): Promise<void> {
  await checkEmbeddingModel(store, embedder);
  if ((await store.getMeta("embedding.model")) === undefined) {
    await store.setMeta("embedding.model", embedder.model);
    await store.setMeta("embedding.dimension", String(embedder.dimension));
    await store.setMeta("embedding.kind", embedder.kind);
  }
  if ((await store.getMeta("extractor")) !== extractorKind) await store.setMeta("extractor", extractorKind);
}
