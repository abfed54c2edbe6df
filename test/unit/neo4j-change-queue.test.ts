import { describe, expect, it } from "vitest";
import { CoalescingWriter } from "../../src/storage/neo4j/change-queue.js";
import { foldChangeSets } from "../../src/storage/neo4j/graph-writes.js";
import { storeWith } from "../support/scripted-neo4j-runner.js";
import { changes, makeEntity } from "../support/storage-fixtures.js";

describe("Neo4j coalescing writer", () => {
  it("applies requests that arrive during a transaction together in the next one, in order", async () => {
    const transactions: number[][] = [];
    const writer = new CoalescingWriter<number>(async (items) => {
      transactions.push(items);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }, 3);
    await Promise.all([1, 2, 3, 4, 5, 6].map((n) => writer.submit(n)));
    expect(transactions).toEqual([[1], [2, 3, 4], [5, 6]]);
  });

  it("retries a failed shared transaction one request at a time, so only the bad one fails", async () => {
    const transactions: string[][] = [];
    const writer = new CoalescingWriter<string>(async (items) => {
      transactions.push(items);
      if (items.includes("bad")) throw new Error("refused");
    }, 10);
    const first = writer.submit("first");
    const results = await Promise.allSettled([writer.submit("a"), writer.submit("bad"), writer.submit("b")]);
    await first;
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(transactions).toEqual([["first"], ["a", "bad", "b"], ["a"], ["bad"], ["b"]]);
  });
});

describe("Neo4j change sets in one transaction", () => {
  const acme = makeEntity("Acme");
  const bob = makeEntity("Bob");

  it("folds upsert-only sets and starts a new fold at a set with deletes", () => {
    const folds = foldChangeSets([
      changes({ upsertEntities: [acme] }),
      changes({ upsertEntities: [bob] }),
      changes({ deleteEntityKeys: [acme.key] }),
      changes({ upsertEntities: [acme] }),
    ]);
    expect(folds.map((f) => [f.deleteEntityKeys, f.upsertEntities.map((e) => e.key)])).toEqual([
      [[], [acme.key, bob.key]],
      [[acme.key], [acme.key]],
    ]);
  });

  it("applies concurrent applyGraphChanges calls of a store in fewer write transactions", async () => {
    const { runner, store } = storeWith();
    const names = Array.from({ length: 20 }, (_, i) => makeEntity(`E${i}`));
    await Promise.all(names.map((entity) => store.applyGraphChanges(changes({ upsertEntities: [entity] }))));
    const upserts = runner.calls.filter((c) => c.name === "store/entities-upsert");
    const written = upserts.flatMap((c) => (c.params.rows as { key: string }[]).map((r) => r.key));
    expect(written).toEqual(names.map((e) => e.key));
    expect(new Set(upserts.map((c) => c.tx)).size).toBeLessThan(names.length);
  });
});
