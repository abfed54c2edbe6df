import type { GraphStore } from "../storage/graph-store.js";

/** How far an interrupted run got over the documents it was given. */
export interface IndexProgress {
  /**
   * Documents finished (processed) and not finished, of those given to the run; `notChunked`: the
   * pending ones the run had not cut into chunks yet, whose chunks no count below includes.
   */
  documents: { done: number; pending: number; notChunked: number };
  /**
   * Chunks merged into the graph and still to extract, of the documents already registered; a
   * document not yet reached has no chunks yet and counts only among the pending documents.
   */
  chunks: { done: number; pending: number };
}

/**
 * Thrown by `index` when its `signal` aborted: the run stopped at a safe point, everything it
 * committed stays, and the next run resumes the rest. `cause` is the signal's reason.
 */
export class IndexInterruptedError extends Error {
  constructor(
    readonly progress: IndexProgress,
    options: { cause: unknown },
  ) {
    const { documents, chunks } = progress;
    super(
      `Indexing interrupted: ${documents.done} of ${documents.done + documents.pending} documents done, ` +
        `${chunks.done} chunks merged, ${chunks.pending} chunks pending${notChunkedPart(progress)}. ` +
        "Run it again to resume.",
      options,
    );
    this.name = "IndexInterruptedError";
  }
}

/** ", and 134 documents not chunked yet": said only when the run stopped before chunking some. */
export function notChunkedPart({ documents }: IndexProgress): string {
  const n = documents.notChunked;
  if (n === 0) return "";
  return `, and ${n === 1 ? "1 document" : `${n} documents`} not chunked yet (their chunks are not counted)`;
}

/** Reads from the store how far the given documents got. */
export async function progressOf(
  store: Pick<GraphStore, "getDocument" | "getChunkStates">,
  docIds: string[],
): Promise<IndexProgress> {
  const progress: IndexProgress = {
    documents: { done: 0, pending: 0, notChunked: 0 },
    chunks: { done: 0, pending: 0 },
  };
  for (const docId of docIds) {
    const doc = await store.getDocument(docId);
    const states = doc ? await store.getChunkStates(docId) : [];
    if (doc?.status === "processed") progress.documents.done += 1;
    else {
      progress.documents.pending += 1;
      // Only documents with text reach here, so no chunks means not chunked yet.
      if (states.length === 0) progress.documents.notChunked += 1;
    }
    for (const state of states) {
      if (state.status === "merged") progress.chunks.done += 1;
      else progress.chunks.pending += 1;
    }
  }
  return progress;
}
