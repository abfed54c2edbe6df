import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createKgrag } from "../../src/kgrag.js";
import { openSqliteStore, SQLITE_FILE_NAME } from "../../src/storage/sqlite/sqlite-store.js";
import { type CliChild, type CliResult, startCli } from "../support/cli-child.js";
import { communityShape, integrityCheck, workspaceSnapshot } from "../support/graph-snapshot.js";
import {
  llmEnv,
  promptPassage,
  seededRandom,
  startLifecycleServer,
  writeCorpus,
} from "../support/lifecycle-corpus.js";
import type { ChatBody } from "../support/scripted-openai-server.js";

interface Progress {
  documents: number;
  chunks: number;
  merged: number;
}

/** Reads how far a running child got, through a read-only connection (WAL lets it read alongside). */
function progressOf(workspace: string): Progress | null {
  const file = join(workspace, SQLITE_FILE_NAME);
  if (!existsSync(file)) return null;
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return db
        .prepare(
          `SELECT (SELECT count(*) FROM documents) AS documents, (SELECT count(*) FROM chunks) AS chunks,
                  (SELECT count(*) FROM chunks WHERE status = 'merged') AS merged`,
        )
        .get() as Progress;
    } finally {
      db.close();
    }
  } catch {
    // The child is still creating the schema.
    return null;
  }
}

function mergedChunkIds(workspace: string): Set<string> {
  const db = new Database(join(workspace, SQLITE_FILE_NAME), { readonly: true });
  try {
    return new Set(db.prepare("SELECT id FROM chunks WHERE status = 'merged'").pluck(true).all() as string[]);
  } finally {
    db.close();
  }
}

/**
 * SIGKILLs the child once `reached()` holds, after `delayMs`. Fails when the child ends on its own
 * first: then the kill point was never reached and the test would prove nothing.
 */
async function killWhen(child: CliChild, reached: () => boolean, delayMs: number): Promise<CliResult> {
  let exited: CliResult | null = null;
  child.done.then((result) => {
    exited = result;
  });
  while (!reached()) {
    if (exited) throw new Error(`kgrag index ended before the kill point:\n${(exited as CliResult).stderr}`);
    await sleep(10);
  }
  await sleep(delayMs);
  child.process.kill("SIGKILL");
  const result = await child.done;
  expect(result.signal, `the run ended by itself: ${result.stderr}`).toBe("SIGKILL");
  return result;
}

/** The community hierarchy as communityShape sees it: what must match a clean run after a resume. */
async function storedCommunityShape(workspace: string) {
  const store = await openSqliteStore(workspace);
  try {
    return communityShape(await store.listCommunities());
  } finally {
    await store.close();
  }
}

/** Runs `index` in process to the end, as the run after the kills; it must fail nothing. */
async function indexToTheEnd(workspace: string, folder: string, env: Record<string, string>): Promise<void> {
  const kgrag = await createKgrag({ env, config: { workspace } });
  try {
    const summary = await kgrag.index([folder]);
    expect(summary.failures).toEqual([]);
  } finally {
    await kgrag.close();
  }
}

// The two kill sequences run side by side: their children spend most of their time starting up.
describe.concurrent("kill -9 during indexing (child processes)", () => {
  it("offline: resumes after four kills at random points and ends with the graph of a clean run", async () => {
    const root = mkdtempSync(join(tmpdir(), "kgrag-crash-"));
    try {
      const folder = join(root, "corpus");
      writeCorpus(folder, 300, 17);
      const ws = join(root, "ws");
      const random = seededRandom(2024);
      // One kill per phase, at a seeded point inside it: registration, extraction (twice, each after
      // a seeded number of new merges) and after the last merge (summaries, embeddings, communities).
      // Capped at the total: a target past it would never be reached.
      const afterNewMerges = (n: number) => (start: Progress | null) => (p: Progress) =>
        p.chunks > 0 && p.merged >= Math.min((start?.merged ?? 0) + n, p.chunks);
      const killPoints = [
        () => (p: Progress) => p.documents > 0,
        afterNewMerges(20 + Math.floor(60 * random())),
        afterNewMerges(60 + Math.floor(80 * random())),
        () => (p: Progress) => p.chunks >= 300 && p.merged === p.chunks,
      ];
      for (const killPoint of killPoints) {
        const reached = killPoint(progressOf(ws));
        const child = startCli(["index", folder, "--workspace", ws, "--json"]);
        const killed = await killWhen(
          child,
          () => {
            const progress = progressOf(ws);
            return progress !== null && reached(progress);
          },
          Math.floor(random() * 40),
        );
        expect(killed.stderr).not.toMatch(/being written by another kgrag process/);
      }

      // The next run, in process: it takes the dead child's lock at once (or throws WorkspaceBusyError).
      await indexToTheEnd(ws, folder, {});
      expect(integrityCheck(ws)).toBe("ok");

      const clean = await createKgrag({ env: {}, config: { workspace: join(root, "clean") } });
      await clean.index([folder]);
      await clean.close();
      const snapshot = await workspaceSnapshot(ws);
      expect(snapshot.documents.every((d) => d.status === "processed")).toBe(true);
      expect(snapshot).toEqual(await workspaceSnapshot(join(root, "clean")));
      expect(await storedCommunityShape(ws)).toEqual(await storedCommunityShape(join(root, "clean")));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 180_000);

  // Enough passages that extraction is still running well after the kill point, at the server's latency.
  const DOCS = 60;

  it("LLM path: asks the model again only about chunks whose answer was in flight at the kill", async () => {
    const root = mkdtempSync(join(tmpdir(), "kgrag-crash-llm-"));
    const server = await startLifecycleServer({ latencyMs: 25 });
    try {
      const folder = join(root, "corpus");
      writeCorpus(folder, DOCS, 29);
      const ws = join(root, "ws");
      const env = llmEnv(server.baseURL);
      const random = seededRandom(99);
      const kills: { merged: Set<string>; requestsSoFar: number }[] = [];

      // Killed during extraction, after a seeded number of extraction requests, then after the last
      // merge (summaries, embeddings, reports).
      const killAt = 15 + Math.floor(15 * random());
      const killPoints = [() => server.count("extract") >= killAt, () => progressOf(ws)?.merged === DOCS];
      for (const reached of killPoints) {
        const child = startCli(["index", folder, "--workspace", ws, "--json"], env);
        await killWhen(child, reached, Math.floor(20 * random()));
        kills.push({ merged: mergedChunkIds(ws), requestsSoFar: server.requests.length });
      }
      await indexToTheEnd(ws, folder, env);

      const chunkByText = new Map((await workspaceSnapshot(ws)).chunks.map((c) => [c.text, c.id]));
      const asked = server.requests
        .map((r, at) => ({ at, stage: r.stage, body: r.body as ChatBody }))
        .filter((r) => r.stage === "extract")
        .map((r) => {
          const passageText = promptPassage({
            stage: "",
            body: r.body,
            headers: {},
            callIndex: 0,
            stageCallIndex: 0,
          });
          const chunkId = chunkByText.get(passageText);
          if (!chunkId) throw new Error(`a prompt for an unknown chunk: ${passageText}`);
          return { at: r.at, chunkId };
        });
      let runStart = 0;
      for (const { merged, requestsSoFar } of kills) {
        const before = new Set(
          asked.filter((r) => r.at >= runStart && r.at < requestsSoFar).map((r) => r.chunkId),
        );
        const after = new Set(asked.filter((r) => r.at >= requestsSoFar).map((r) => r.chunkId));
        // A merged chunk is never extracted again.
        expect([...merged].filter((id) => after.has(id))).toEqual([]);
        // Answers received before the kill are in the workspace cache: only those still in flight
        // (at most 2 x KGRAG_LLM_CONCURRENCY = 8 chunks at a time) are asked again.
        expect([...before].filter((id) => after.has(id)).length).toBeLessThanOrEqual(8);
        runStart = requestsSoFar;
      }
      const perChunk = new Map<string, number>();
      for (const { chunkId } of asked) perChunk.set(chunkId, (perChunk.get(chunkId) ?? 0) + 1);
      expect(perChunk.size).toBe(DOCS);
      expect(asked.length).toBeLessThan(DOCS + 8 * kills.length);

      const clean = await createKgrag({ env, config: { workspace: join(root, "clean") } });
      await clean.index([folder]);
      await clean.close();
      expect(await workspaceSnapshot(ws)).toEqual(await workspaceSnapshot(join(root, "clean")));
    } finally {
      await server.close();
      rmSync(root, { recursive: true, force: true });
    }
  }, 180_000);
});

describe("a run that dies at the worst moment (fault injected in process)", () => {
  let root: string;
  let paths: string[];

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "kgrag-interrupt-"));
    paths = writeCorpus(join(root, "corpus"), 15, 31);
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const open = (name: string) => createKgrag({ env: {}, config: { workspace: join(root, name) } });

  async function cleanIndex(files: string[]): Promise<string> {
    const clean = await open("clean");
    await clean.index(files);
    await clean.close();
    return join(root, "clean");
  }

  it("finishes a delete that died between removing the documents and rebuilding the graph", async () => {
    const kgrag = await open("ws");
    try {
      const indexed = await kgrag.index(paths);
      const { store } = kgrag.services;
      vi.spyOn(store, "applyGraphChanges").mockRejectedValueOnce(new Error("killed"));
      await expect(kgrag.deleteDocuments([indexed.added[0] ?? "", indexed.added[3] ?? ""])).rejects.toThrow(
        "killed",
      );
      // The documents are gone but the graph still cites their chunks: the state a kill leaves.
      const chunkIds = new Set((await store.listChunks()).map((c) => c.id));
      const cited = (await store.listEntities()).flatMap((e) => e.sourceChunkIds);
      expect(cited.some((id) => !chunkIds.has(id))).toBe(true);

      const remaining = paths.filter((_, i) => i !== 0 && i !== 3);
      const next = await kgrag.index(remaining);
      expect(next.unchanged).toHaveLength(remaining.length);
    } finally {
      await kgrag.close();
    }
    const clean = await cleanIndex(paths.filter((_, i) => i !== 0 && i !== 3));
    expect(await workspaceSnapshot(join(root, "ws"))).toEqual(await workspaceSnapshot(clean));
    expect(await storedCommunityShape(join(root, "ws"))).toEqual(await storedCommunityShape(clean));
  });

  it("re-clusters on the next run when a run died after merging but before its communities", async () => {
    const kgrag = await open("ws");
    try {
      await kgrag.index(paths.slice(0, 9));
      vi.spyOn(kgrag.services.store, "replaceCommunities").mockRejectedValueOnce(new Error("killed"));
      await expect(kgrag.index(paths)).rejects.toThrow("killed");
      const unfinished = (await kgrag.services.store.listDocuments()).filter((d) => d.status !== "processed");
      expect(unfinished.map((d) => d.error)).toEqual(Array(6).fill("indexing did not finish: killed"));

      const retry = await kgrag.index(paths);
      expect(retry.resumed).toHaveLength(6);
      expect(retry.failures).toEqual([]);
    } finally {
      await kgrag.close();
    }
    const clean = await cleanIndex(paths);
    expect(await workspaceSnapshot(join(root, "ws"))).toEqual(await workspaceSnapshot(clean));
    expect(await storedCommunityShape(join(root, "ws"))).toEqual(await storedCommunityShape(clean));
  });
});
