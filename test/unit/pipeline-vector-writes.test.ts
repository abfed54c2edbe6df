import { describe, expect, it } from "vitest";
import { VectorWrites } from "../../src/pipeline/embed-graph.js";
import type { VectorItem, VectorNamespace } from "../../src/types.js";

const items = (from: number, count: number): VectorItem[] =>
  Array.from({ length: count }, (_, i) => ({ id: `v${from + i}`, textHash: "h", vector: [1, 0] }));

/** A store write that stays in flight until the test releases it. */
function heldWrites() {
  const written: string[][] = [];
  const release: Array<(error?: Error) => void> = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const write = (_ns: VectorNamespace, batch: VectorItem[]) =>
    new Promise<void>((resolve, reject) => {
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      release.push((error) => {
        inFlight--;
        if (error) return reject(error);
        written.push(batch.map((item) => item.id));
        resolve();
      });
    });
  return { write, written, release, mostInFlight: () => mostInFlight };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("VectorWrites", () => {
  it("lets the next step embed while a write is in flight, one write at a time, in order", async () => {
    const store = heldWrites();
    const writes = new VectorWrites("entities", store.write, 2);
    // The first full batch starts a write and returns at once: embedding goes on.
    await writes.add(items(0, 2));
    expect(store.release).toHaveLength(1);
    // The second full batch waits for the first write before it starts.
    const second = writes.add(items(2, 3));
    await settle();
    expect(store.release).toHaveLength(1);
    store.release[0]?.();
    await second;
    expect(store.release).toHaveLength(2);
    const flushed = writes.flush();
    store.release[1]?.();
    await settle();
    store.release[2]?.();
    await flushed;
    expect(store.written).toEqual([["v0", "v1"], ["v2", "v3"], ["v4"]]);
    expect(store.mostInFlight()).toBe(1);
  });

  it("reports a failed write at the next batch, and flush waits for the last write", async () => {
    const store = heldWrites();
    const writes = new VectorWrites("relationships", store.write, 1);
    await writes.add(items(0, 1));
    store.release[0]?.(new Error("commit refused"));
    await expect(writes.add(items(1, 1))).rejects.toThrow("commit refused");

    const later = heldWrites();
    const other = new VectorWrites("chunks", later.write, 5);
    await other.add(items(0, 5));
    let flushed = false;
    const flush = other.flush().then(() => {
      flushed = true;
    });
    await settle();
    expect(flushed).toBe(false);
    later.release[0]?.();
    await flush;
    expect(later.written).toEqual([["v0", "v1", "v2", "v3", "v4"]]);
  });
});
