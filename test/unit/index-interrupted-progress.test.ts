import { describe, expect, it } from "vitest";
import { IndexInterruptedError, progressOf } from "../../src/pipeline/interrupted.js";
import type { ChunkState, DocumentRecord } from "../../src/types.js";
import { makeDocument } from "../support/storage-fixtures.js";

function chunkState(docId: string, index: number, status: ChunkState["status"]): ChunkState {
  return { chunkId: `${docId}-${index}`, docId, status, error: null, rawOutput: null };
}

/** A run stopped while registering: 2 documents chunked (one merged), 3 never reached. */
const documents = new Map<string, DocumentRecord>([
  ["a", makeDocument("a", { status: "processed" })],
  ["b", makeDocument("b", { status: "processing" })],
  ["c", makeDocument("c", { status: "pending" })],
]);
const chunks = new Map<string, ChunkState[]>([
  ["a", [chunkState("a", 0, "merged"), chunkState("a", 1, "merged")]],
  ["b", [chunkState("b", 0, "merged"), chunkState("b", 1, "pending")]],
]);
const store = {
  getDocument: async (id: string) => documents.get(id),
  getChunkStates: async (id?: string) => chunks.get(id ?? "") ?? [],
};

describe("the progress of an interrupted index run", () => {
  it("counts the documents not chunked yet, whose chunks are in no count", async () => {
    const progress = await progressOf(store, ["a", "b", "c", "d", "e"]);
    expect(progress).toEqual({
      documents: { done: 1, pending: 4, notChunked: 3 },
      chunks: { done: 3, pending: 1 },
    });
    const error = new IndexInterruptedError(progress, { cause: new Error("stop") });
    expect(error.message).toContain("3 chunks merged, 1 chunks pending, and 3 documents not chunked yet");
  });

  it("says nothing of unchunked documents when every one was chunked", async () => {
    const progress = await progressOf(store, ["a", "b"]);
    expect(progress.documents.notChunked).toBe(0);
    expect(new IndexInterruptedError(progress, { cause: null }).message).not.toContain("not chunked");
  });
});
