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

/** Meta key of the extractors that extracted the workspace's chunks, in the order they came, comma-separated. */
const EXTRACTORS_META_KEY = "extractor";

/**
 * Called by a writer before it writes: records the embedding model, and the extractor in use when
 * none is recorded yet. A later extractor is added only once it extracts something
 * (recordExtraction): a run that finds every document unchanged keeps the graph another made.
 */
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
  if (!(await store.getMeta(EXTRACTORS_META_KEY))) await store.setMeta(EXTRACTORS_META_KEY, extractorKind);
}

/** The extractors that extracted the workspace's chunks, first first. */
export async function recordedExtractors(store: Pick<GraphStore, "getMeta">): Promise<string[]> {
  const recorded = (await store.getMeta(EXTRACTORS_META_KEY)) ?? "";
  return recorded
    .split(",")
    .map((kind) => kind.trim())
    .filter(Boolean);
}

/** Adds the extractor that has just extracted chunks to the recorded ones. */
export async function recordExtraction(store: GraphStore, extractorKind: string): Promise<void> {
  const recorded = await recordedExtractors(store);
  if (recorded.includes(extractorKind)) return;
  await store.setMeta(EXTRACTORS_META_KEY, [...recorded, extractorKind].join(", "));
}
