import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import type { Driver } from "neo4j-driver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKgrag } from "../../src/kgrag.js";
import { openNeo4jStore } from "../../src/storage/neo4j/neo4j-store.js";
import { REPO_ROOT } from "../support/cli-child.js";
import { runMain } from "../support/cli-in-process.js";
import { graphSnapshot } from "../support/graph-snapshot.js";
import { liveDriver, liveNeo4j, skipReason, useNeo4jEnv } from "../support/live-neo4j.js";

/**
 * `kgrag migrate --to neo4j` live (the copy exports and answers like the original), one writer at
 * a time on a Neo4j workspace, and full-text search that survives a very long question.
 */
describe.skipIf(!liveNeo4j)(`Neo4j migration and writers (${liveNeo4j ? "live" : skipReason})`, () => {
  let root: string;
  let driver: Driver;
  const created: string[] = [];
  const corpus = join(REPO_ROOT, "samples/corpus");
  const workspaceDir = (prefix: string) => {
    const dir = join(root, `${prefix}-${randomUUID()}`);
    created.push(dir.split("/").pop() ?? "");
    return dir;
  };
  const withStorage = async <T>(storage: "sqlite" | "neo4j", work: () => Promise<T>): Promise<T> => {
    process.env.KGRAG_STORAGE = storage;
    try {
      return await work();
    } finally {
      process.env.KGRAG_STORAGE = "neo4j";
    }
  };
  const neo4jKgrag = (workspace: string) =>
    createKgrag({ env: {}, config: { workspace, storage: "neo4j", neo4j: liveNeo4j } });

  beforeAll(() => {
    if (!liveNeo4j) return;
    useNeo4jEnv(liveNeo4j);
    driver = liveDriver(liveNeo4j);
    root = mkdtempSync(join(tmpdir(), "kgrag-neo4j-migrate-"));
  });

  afterAll(async () => {
    if (!liveNeo4j) return;
    for (const name of created)
      await driver.executeQuery("MATCH (n {workspace: $name}) DETACH DELETE n", { name });
    await driver.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("copies an embedded workspace: the JSON exports are equal, and the copy answers with the same passages", async () => {
    const ws = workspaceDir("migrate");
    await withStorage("sqlite", async () => {
      expect((await runMain(["index", corpus, "--workspace", ws])).code).toBe(0);
      const migrated = await runMain(["migrate", "--to", "neo4j", "--workspace", ws]);
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(
        (await runMain(["export", "--format", "json", "--out", join(root, "sqlite.json"), "--workspace", ws]))
          .code,
      ).toBe(0);
    });
    const exported = await runMain([
      "export",
      "--format",
      "json",
      "--out",
      join(root, "neo4j.json"),
      "--workspace",
      ws,
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    const embedded = JSON.parse(readFileSync(join(root, "sqlite.json"), "utf8"));
    const copy = JSON.parse(readFileSync(join(root, "neo4j.json"), "utf8"));
    expect(copy.nodes.length).toBeGreaterThan(10);
    expect(copy.communities.length).toBeGreaterThan(0);
    expect(copy).toEqual(embedded);

    // The copy answers with the passages of the same corpus indexed straight into Neo4j. (Against the
    // embedded original, full-text ranking differs by engine: SQLite FTS5 with jieba words versus
    // Lucene's CJK bigrams; bench/neo4j-parity.ts measures that gap on a real corpus.)
    const native = workspaceDir("native");
    expect((await runMain(["index", corpus, "--workspace", native])).code).toBe(0);
    const questions = readFileSync(join(REPO_ROOT, "samples/questions.jsonl"), "utf8").trim().split("\n");
    let answered = 0;
    for (const line of questions) {
      const { question } = JSON.parse(line) as { question: string };
      const ask = (ws: string) =>
        runMain(["query", question, "--mode", "mix", "--context-only", "--json", "--workspace", ws]);
      const ids = (result: { stdout: string }) =>
        (JSON.parse(result.stdout) as { references: { chunkId: string }[] }).references.map((r) => r.chunkId);
      const copied = ids(await ask(ws));
      answered += copied.length > 0 ? 1 : 0;
      // The same passages; their order can move where scores tie, since Lucene's statistics span
      // every workspace in the database, and other tests write to it meanwhile.
      expect([...copied].sort(), question).toEqual(ids(await ask(native)).sort());
      const original = ids(await withStorage("sqlite", () => ask(ws)));
      const shared = copied.filter((id) => original.includes(id)).length;
      expect(shared, question).toBeGreaterThanOrEqual(Math.ceil(copied.length / 2));
    }
    // Theme questions cite community reports, not passages; every other one cites passages.
    expect(answered).toBeGreaterThanOrEqual(questions.length - 2);
    // Two indexing runs, a migration and three queries per question: over 4 minutes on busy cores.
  }, 600_000);

  it("two indexers on one Neo4j workspace end in the graph of one run", async () => {
    const shared = workspaceDir("writers");
    const single = workspaceDir("single");
    const [first, second] = [await neo4jKgrag(shared), await neo4jKgrag(shared)];
    const results = await Promise.allSettled([first.index([corpus]), second.index([corpus])]);
    await Promise.all([first.close(), second.close()]);
    expect(results.some((r) => r.status === "fulfilled")).toBe(true);
    // Both instances are in this process: the refused one is told so, not pointed at its own pid.
    for (const result of results) {
      if (result.status === "rejected")
        expect(String(result.reason)).toMatch(/being written by another kgrag instance in this same process/);
    }
    const one = await neo4jKgrag(single);
    await one.index([corpus]);
    await one.close();
    const [a, b] = [
      await openNeo4jStore(liveNeo4j!, shared.split("/").pop()!),
      await openNeo4jStore(liveNeo4j!, single.split("/").pop()!),
    ];
    try {
      const [sharedGraph, singleGraph] = [await graphSnapshot(a), await graphSnapshot(b)];
      expect(sharedGraph.entities.length).toBeGreaterThan(10);
      expect(sharedGraph).toEqual(singleGraph);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 240_000);

  it("takes over the lease of a writer that died on this host, and refuses a live one elsewhere", async () => {
    const ws = workspaceDir("lease");
    const name = ws.split("/").pop();
    const plant = (pid: number, host: string) =>
      driver.executeQuery(
        "MERGE (l:WriterLease {workspace: $name}) SET l.owner = $owner, l.pid = $pid, l.host = $host, " +
          "l.since = timestamp(), l.expiresAt = timestamp() + 600000",
        { name, owner: `${host}:${pid}:planted`, pid, host },
      );
    const kg = await neo4jKgrag(ws);
    try {
      await plant(2 ** 22 + 12345, hostname()); // no such process here
      const summary = await kg.index([join(corpus, "mara-quell.txt")]);
      expect(summary.documents).toBe(1);
      await plant(process.pid, "another-host");
      await expect(kg.index([join(corpus, "vessen.txt")])).rejects.toThrow(/pid \d+ on another-host/);
    } finally {
      await kg.close();
    }
  }, 120_000);

  it("answers a question of more words than Lucene's clause limit (1,024)", async () => {
    const ws = workspaceDir("long");
    const kg = await neo4jKgrag(ws);
    try {
      await kg.index([join(corpus, "mara-quell.txt")]);
      // 1,500 words in under 8,000 characters: within query.maxQuestionChars (10,000).
      const words = Array.from({ length: 1500 }, (_, i) => `w${i}`).join(" ");
      const result = await kg.query(`Where was Mara Quell born? ${words}`, {
        mode: "naive",
        contextOnly: true,
      });
      expect(result.references.length).toBeGreaterThan(0);
      const local = await kg.query(`Mara Quell ${"光学透镜镀膜研究".repeat(300)}`, {
        mode: "local",
        contextOnly: true,
      });
      expect(local.references.length).toBeGreaterThan(0);
    } finally {
      await kg.close();
    }
  }, 120_000);
});
