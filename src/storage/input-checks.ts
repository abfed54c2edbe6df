import type { ChunkRecord, VectorItem, VectorNamespace } from "../types.js";

/**
 * Input rules both storage adapters enforce before writing, kept in one place so the SQLite and
 * Neo4j stores refuse exactly the same bad input with the same message.
 */

export function assertChunksBelongTo(docId: string, chunks: ChunkRecord[]): void {
  const seen = new Set<string>();
  for (const chunk of chunks) {
    if (chunk.docId !== docId) {
      throw new Error(`Chunk "${chunk.id}" belongs to document "${chunk.docId}", not "${docId}".`);
    }
    if (seen.has(chunk.id)) throw new Error(`Chunk id "${chunk.id}" appears twice in document "${docId}".`);
    seen.add(chunk.id);
  }
}

/**
 * The dimension the items will be stored with: that of the vectors already in the namespace
 * (`stored`), or of the first item. Any other dimension, an empty vector or a non-finite number is
 * refused, since mixing models would make every similarity meaningless.
 */
export function vectorDimension(
  ns: VectorNamespace,
  items: VectorItem[],
  stored: number | undefined,
): number {
  const dim = stored ?? (items[0] as VectorItem).vector.length;
  for (const item of items) {
    if (item.vector.length !== dim) {
      const against = stored === undefined ? "the other vectors in this batch" : "the vectors already stored";
      throw new Error(
        `Vector "${item.id}" has ${item.vector.length} dimensions but ${against} in namespace "${ns}" ` +
          `have ${dim}. The embedding model or its dimension changed: use the workspace's model, ` +
          "or start a new workspace to switch models.",
      );
    }
    if (dim === 0 || !item.vector.every(Number.isFinite)) {
      throw new Error(`Vector "${item.id}" in namespace "${ns}" is empty or holds non-finite numbers.`);
    }
  }
  return dim;
}
