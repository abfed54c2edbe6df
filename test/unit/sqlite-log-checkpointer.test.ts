import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { LogCheckpointer } from "../../src/storage/sqlite/log-checkpointer.js";
import { openSqliteStore, sqliteFile } from "../../src/storage/sqlite/sqlite-store.js";
import { seedDocument } from "../support/storage-fixtures.js";

const tempDirs: string[] = [];

afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A store with a document written (its log holds frames), and a checkpointer on its file. */
async function checkpointerOnWrittenStore() {
  const workspace = await mkdtemp(join(tmpdir(), "kgrag-checkpointer-"));
  tempDirs.push(workspace);
  const store = await openSqliteStore(workspace);
  await seedDocument(store, "d1", ["the harbour's lanterns ".repeat(50)]);
  const onMainThread = vi.fn();
  const checkpoints = new LogCheckpointer({
    file: sqliteFile(workspace),
    busyTimeoutMs: 1_000,
    onMainThread,
  });
  return { store, checkpoints, onMainThread };
}

describe("LogCheckpointer", () => {
  it("checkpoints on the thread, not on the main connection", async () => {
    const { store, checkpoints, onMainThread } = await checkpointerOnWrittenStore();
    await checkpoints.checkpoint();
    await checkpoints.checkpoint();
    await checkpoints.close();
    expect(onMainThread).not.toHaveBeenCalled();
    await store.close();
  });

  it("runs a checkpoint asked for once closing started on the main connection, never on a new thread", async () => {
    const { store, checkpoints, onMainThread } = await checkpointerOnWrittenStore();
    await checkpoints.checkpoint();
    const closing = checkpoints.close();
    const during = checkpoints.checkpoint();
    await closing;
    await during;
    await checkpoints.checkpoint();
    expect(onMainThread).toHaveBeenCalledTimes(2);
    await store.close();
  });

  it("falls back to the main connection when the thread cannot open the file, and stays there", async () => {
    const onMainThread = vi.fn();
    const checkpoints = new LogCheckpointer({
      file: join(tmpdir(), "kgrag-no-such-folder", "kgrag.sqlite"),
      busyTimeoutMs: 1_000,
      onMainThread,
    });
    await checkpoints.checkpoint();
    await checkpoints.checkpoint();
    await checkpoints.close();
    expect(onMainThread).toHaveBeenCalledTimes(2);
  });

  it("shares a checkpoint asked for again before it started; one asked for after it started is another", async () => {
    const onMainThread = vi.fn();
    const checkpoints = new LogCheckpointer({
      file: join(tmpdir(), "kgrag-no-such-folder", "kgrag.sqlite"),
      busyTimeoutMs: 1_000,
      onMainThread,
    });
    const first = checkpoints.checkpoint();
    const second = checkpoints.checkpoint();
    expect(second).toBe(first);
    await first;
    const third = checkpoints.checkpoint();
    expect(third).not.toBe(first);
    await third;
    await checkpoints.close();
    expect(onMainThread).toHaveBeenCalledTimes(2);
  });
});
