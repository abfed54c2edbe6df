import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Embedder } from "../../src/embedding/embedder.js";
import { HashingEmbedder } from "../../src/embedding/hashing-embedder.js";
import { createKgrag, KgragClosedError } from "../../src/kgrag.js";
import { WorkspaceBusyError, withWorkspaceLock } from "../../src/workspace/lock.js";
import { REPO_ROOT, startCli } from "../support/cli-child.js";
import { runMain } from "../support/cli-in-process.js";
import { integrityCheck, workspaceSnapshot } from "../support/graph-snapshot.js";
import { extractReply, llmEnv, startLifecycleServer, writeCorpus } from "../support/lifecycle-corpus.js";

/** Leaves a lock folder as a process with this pid would have left it. */
function plantLock(workspace: string, owner: { pid: number; host: string } | null): void {
  const folder = join(workspace, "kgrag.lock");
  mkdirSync(folder, { recursive: true });
  if (owner)
    writeFileSync(join(folder, "owner.json"), JSON.stringify({ ...owner, since: new Date().toISOString() }));
}

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(child.stdout);
}

describe("two writers on one workspace", () => {
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "kgrag-concurrency-"));
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("two `kgrag index` started at once on a new workspace: never both writing, never corrupt", async () => {
    const folder = join(root, "corpus");
    writeCorpus(folder, 40, 51);
    const ws = join(root, "ws");
    const runs = [0, 1].map(() => startCli(["index", folder, "--workspace", ws, "--json"]));
    const results = await Promise.all(runs.map((r) => r.done));

    // Either one lost the race for the lock and said so, or they ran one after the other.
    expect(results.some((r) => r.code === 0)).toBe(true);
    for (const result of results.filter((r) => r.code !== 0)) {
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/is being written by another kgrag process/);
    }
    expect(integrityCheck(ws)).toBe("ok");
    const clean = await createKgrag({ env: {}, config: { workspace: join(root, "clean") } });
    await clean.index([folder]);
    await clean.close();
    expect(await workspaceSnapshot(ws)).toEqual(await workspaceSnapshot(join(root, "clean")));
  });

  it("a second `kgrag index` while one is writing fails clearly; readers carry on", async () => {
    let openGate = () => {};
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    const server = await startLifecycleServer({
      // The first writer holds the lock while its extraction calls wait here.
      extract: async (call) => {
        await gate;
        return extractReply(call);
      },
    });
    try {
      const folder = join(root, "corpus");
      writeCorpus(folder, 12, 52);
      const ws = join(root, "ws");
      const env = llmEnv(server.baseURL);
      const writer = startCli(["index", folder, "--workspace", ws, "--json"], env);
      while (server.count("extract") === 0) await sleep(20);

      // The second writer runs in this process: another process than the writer all the same.
      const second = await runMain(["index", folder, "--workspace", ws, "--json"], env);
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(
        `is being written by another kgrag process (pid ${writer.process.pid} on ${hostname()}`,
      );
      const reader = await createKgrag({ env, config: { workspace: ws } });
      try {
        const status = await reader.status();
        expect(status.documents).toHaveLength(12);
        expect(status.documents.every((d) => d.status === "processing")).toBe(true);
      } finally {
        await reader.close();
      }

      openGate();
      expect((await writer.done).code).toBe(0);
      expect(integrityCheck(ws)).toBe("ok");
      const clean = await createKgrag({ env, config: { workspace: join(root, "clean") } });
      await clean.index([folder]);
      await clean.close();
      expect(await workspaceSnapshot(ws)).toEqual(await workspaceSnapshot(join(root, "clean")));
    } finally {
      openGate();
      await server.close();
    }
  });

  it("refuses a lock held by a live process, naming it", async () => {
    const ws = join(root, "ws");
    // The parent (vitest's) runs while this test does; this process's own pid is another instance.
    plantLock(ws, { pid: process.ppid, host: hostname() });
    const attempt = withWorkspaceLock(ws, async () => "ran");
    await expect(attempt).rejects.toBeInstanceOf(WorkspaceBusyError);
    await expect(attempt).rejects.toThrow(`another kgrag process (pid ${process.ppid} on ${hostname()}`);
  });

  it("a second instance in this process is told so, not pointed at its own pid", async () => {
    const ws = join(root, "two-instances");
    let openGate = () => {};
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    let embedding = () => {};
    const started = new Promise<void>((resolve) => {
      embedding = resolve;
    });
    const hashing = new HashingEmbedder();
    const held: Embedder = {
      model: hashing.model,
      dimension: hashing.dimension,
      kind: hashing.kind,
      embed: async (texts) => {
        embedding();
        await gate;
        return hashing.embed(texts);
      },
    };
    const first = await createKgrag({ env: {}, config: { workspace: ws }, embedder: held });
    const second = await createKgrag({ env: {}, config: { workspace: ws } });
    try {
      const docs = [{ id: "a", title: "A", text: "Ines Varga repairs clocks in Porto." }];
      const indexing = first.index(docs, { communities: false });
      await started;
      const attempt = second.index(docs, { communities: false });
      await expect(attempt).rejects.toBeInstanceOf(WorkspaceBusyError);
      await expect(attempt).rejects.toThrow(/by another kgrag instance in this same process/);
      await expect(attempt).rejects.not.toThrow(`pid ${process.pid}`);
      openGate();
      await indexing;
    } finally {
      openGate();
      await first.close();
      await second.close();
    }
  });

  it("one instance's writes wait for each other instead of finding the lock its own first call holds", async () => {
    const ws = join(root, "one-instance");
    let openGate = () => {};
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    let embedding = () => {};
    const started = new Promise<void>((resolve) => {
      embedding = resolve;
    });
    const hashing = new HashingEmbedder();
    const held: Embedder = {
      model: hashing.model,
      dimension: hashing.dimension,
      kind: hashing.kind,
      embed: async (texts) => {
        embedding();
        await gate;
        return hashing.embed(texts);
      },
    };
    const kg = await createKgrag({ env: {}, config: { workspace: ws }, embedder: held });
    try {
      const indexing = kg.index([{ id: "a", title: "A", text: "Ines Varga repairs clocks in Porto." }], {
        communities: false,
      });
      await started;
      const second = kg.index([{ id: "b", title: "B", text: "Tomas Weber sails from Lisbon." }], {
        communities: false,
      });
      const deleting = kg.deleteDocuments(["a"]);
      // The first call holds the lock meanwhile: a second call trying the lock would be refused now
      // (within milliseconds); a queued one waits. Nothing here is timed: the wait only gives a
      // refusal the chance to happen before the first call goes on.
      await Promise.race([second.catch(() => undefined), sleep(1_000)]);
      openGate();
      expect((await indexing).added).toEqual(["a"]);
      expect((await second).added).toEqual(["b"]);
      expect(await deleting).toEqual({ deleted: ["a"], missing: [] });
      expect((await kg.status()).documents.map((d) => d.id)).toEqual(["b"]);
    } finally {
      openGate();
      await kg.close();
    }
  });

  it("close() during a write waits for it, and refuses calls made after it", async () => {
    const ws = join(root, "close-during-write");
    let openGate = () => {};
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    let embedding = () => {};
    const started = new Promise<void>((resolve) => {
      embedding = resolve;
    });
    const hashing = new HashingEmbedder();
    const held: Embedder = {
      model: hashing.model,
      dimension: hashing.dimension,
      kind: hashing.kind,
      embed: async (texts) => {
        embedding();
        await gate;
        return hashing.embed(texts);
      },
    };
    const kg = await createKgrag({ env: {}, config: { workspace: ws }, embedder: held });
    const indexing = kg.index([{ id: "a", title: "A", text: "Ines Varga repairs clocks in Porto." }], {
      communities: false,
    });
    await started;
    const closing = kg.close();
    await expect(kg.index([{ id: "b", title: "B", text: "Later." }])).rejects.toBeInstanceOf(
      KgragClosedError,
    );
    openGate();
    expect((await indexing).added).toEqual(["a"]);
    await closing;
    const reopened = await createKgrag({ env: {}, config: { workspace: ws } });
    try {
      expect((await reopened.status()).documents.map((d) => [d.id, d.status])).toEqual([["a", "processed"]]);
    } finally {
      await reopened.close();
    }
  });

  it("takes over at once a lock left by a killed process of this host", async () => {
    const ws = join(root, "ws");
    plantLock(ws, { pid: deadPid(), host: hostname() });
    // A fresh lock: waiting for proper-lockfile's 30 s staleness (or retrying at all) would fail here.
    expect(await withWorkspaceLock(ws, async () => "ran")).toBe("ran");
    // Released again: the next writer gets it too.
    expect(await withWorkspaceLock(ws, async () => "again")).toBe("again");
  });

  it("does not guess about a fresh lock of another host", async () => {
    const elsewhere = join(root, "elsewhere");
    plantLock(elsewhere, { pid: deadPid(), host: `${hostname()}-other` });
    const attempt = withWorkspaceLock(elsewhere, async () => "ran");
    await expect(attempt).rejects.toBeInstanceOf(WorkspaceBusyError);
    await expect(attempt).rejects.toThrow(`pid`);
  });

  it("takes over a lock never named (its holder died between creating and naming it)", async () => {
    const anonymous = join(root, "anonymous");
    plantLock(anonymous, null);
    expect(await withWorkspaceLock(anonymous, async () => "ran")).toBe("ran");
    expect(existsSync(join(anonymous, "kgrag.lock"))).toBe(false);
  });

  it("removes its lock when the process exits without releasing it (a second Ctrl-C)", () => {
    const ws = join(root, "ws");
    const script = [
      `import { withWorkspaceLock } from ${JSON.stringify(join(REPO_ROOT, "src/workspace/lock.ts"))};`,
      `await withWorkspaceLock(${JSON.stringify(ws)}, async () => process.exit(130));`,
    ].join("\n");
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: REPO_ROOT,
      encoding: "utf8",
    });
    expect(child.status, child.stderr).toBe(130);
    expect(existsSync(join(ws, "kgrag.lock"))).toBe(false);
  });
});
