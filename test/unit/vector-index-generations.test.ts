import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { Sql } from "../../src/storage/sqlite/connection.js";
import { openSqliteStore } from "../../src/storage/sqlite/sqlite-store.js";

const tempDirs: string[] = [];

afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

afterEach(() => {
  vi.restoreAllMocks();
});

async function tempWorkspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "kgrag-vector-generations-"));
  tempDirs.push(dir);
  return dir;
}

const item = (id: string, vector: number[]) => ({ id, vector, textHash: id });

/** The reads of a namespace's generation that `work` makes (statements on vector_generations). */
async function generationReads(work: () => Promise<unknown>): Promise<number> {
  const column = vi.spyOn(Sql.prototype, "column");
  await work();
  const reads = column.mock.calls.filter(([sql]) => String(sql).includes("FROM vector_generations")).length;
  column.mockRestore();
  return reads;
}

describe("vector search: a namespace's generation is read once per data generation", () => {
  it("searches of unchanged data read it once; a write here or by another connection is seen by the next search", async () => {
    const dir = await tempWorkspace();
    const reader = await openSqliteStore(dir);
    const writer = await openSqliteStore(dir);
    try {
      await writer.upsertVectors("entities", [item("a", [1, 0, 0]), item("b", [0, 1, 0])]);
      const search = (vector: number[]) => reader.searchVectors("entities", vector, 1);
      expect((await search([1, 0, 0]))[0]?.id).toBe("a");
      // Three searches in a row, the data unchanged: the generation is not read again.
      expect(
        await generationReads(async () => {
          for (let i = 0; i < 3; i++) expect((await search([0, 1, 0]))[0]?.id).toBe("b");
        }),
      ).toBe(0);
      // Another connection (another process, say) adds a vector: the next search finds it.
      await writer.upsertVectors("entities", [item("c", [0, 0, 1])]);
      expect((await search([0, 0, 1]))[0]?.id).toBe("c");
      // ...and deletes one: it is gone from the next search.
      await writer.deleteVectors("entities", ["c"]);
      expect((await search([0, 0, 1]))[0]?.id).not.toBe("c");
      // The reader's own write is seen as well.
      await reader.upsertVectors("entities", [item("d", [0.1, 0.1, 1])]);
      expect((await search([0, 0, 1]))[0]?.id).toBe("d");
    } finally {
      await reader.close();
      await writer.close();
    }
  });
});
