import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createKgrag, type Kgrag } from "../../src/kgrag.js";
import type { CommunityRecord } from "../../src/types.js";
import { jsonOutput } from "../support/cli-child.js";
import { runMain } from "../support/cli-in-process.js";
import { graphSnapshot, workspaceSnapshot } from "../support/graph-snapshot.js";
import { llmEnv, startLifecycleServer, writeCorpus } from "../support/lifecycle-corpus.js";
import type { ScriptedServer } from "../support/scripted-openai-server.js";

/** Keys mentioned by the chunks of each document, to find what a batch delete shares. */
async function keysByDocument(kgrag: Kgrag, docIds: string[]): Promise<Map<string, string[]>> {
  const { store } = kgrag.services;
  const byDoc = new Map<string, string[]>();
  for (const docId of docIds) {
    const chunkIds = (await store.listChunks(docId)).map((c) => c.id);
    const mentions = await store.getChunkMentions(chunkIds);
    byDoc.set(docId, [...new Set(mentions.entities.map((m) => m.entityKey))]);
  }
  return byDoc;
}

/** Communities whose (id, content) did not exist before: the only ones that need a new report. */
function changedCommunities(before: CommunityRecord[], after: CommunityRecord[]): CommunityRecord[] {
  const known = new Set(before.map((c) => `${c.id} ${c.contentHash}`));
  return after.filter((c) => !known.has(`${c.id} ${c.contentHash}`));
}

describe("deleting documents (offline)", () => {
  let root: string;
  let paths: string[];

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "kgrag-delete-"));
    paths = writeCorpus(join(root, "corpus"), 16, 11);
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const open = (name: string) => createKgrag({ env: {}, config: { workspace: join(root, name) } });

  it("leaves the graph a clean index of the remaining documents would build, rebuilding each entity once", async () => {
    const kgrag = await open("ws");
    const reportWriter = vi.spyOn(kgrag.components.reportWriter, "write");
    try {
      const indexed = await kgrag.index([join(root, "corpus")]);
      // Documents of one group share entities; the other groups' communities are untouched.
      const doomedIndexes = [0, 3, 6, 9];
      const doomed = doomedIndexes.map((i) => indexed.added[i] ?? "");
      const byDoc = await keysByDocument(kgrag, doomed);
      const mentionedTwice = [...new Set([...byDoc.values()].flat())].filter(
        (key) => [...byDoc.values()].filter((keys) => keys.includes(key)).length > 1,
      );
      expect(mentionedTwice.length).toBeGreaterThan(0);
      const communitiesBefore = await kgrag.services.store.listCommunities();
      const historyBefore = (await kgrag.services.store.listHistory()).length;
      reportWriter.mockClear();

      const result = await kgrag.deleteDocuments([...doomed, "no-such-document"]);
      expect(result).toEqual({ deleted: doomed, missing: ["no-such-document"] });

      // Every change is in the history with the delete as its cause, each key at most once.
      const entries = (await kgrag.services.store.listHistory()).slice(historyBefore);
      const deleteEntries = entries.filter((e) => e.cause.startsWith("delete document"));
      expect(deleteEntries.length).toBeGreaterThan(0);
      expect(deleteEntries.every((e) => doomed.every((id) => e.cause.includes(id)))).toBe(true);
      const perKey = new Map<string, number>();
      for (const e of deleteEntries)
        perKey.set(`${e.kind} ${e.key}`, (perKey.get(`${e.kind} ${e.key}`) ?? 0) + 1);
      expect(Math.max(...perKey.values())).toBe(1);
      for (const key of mentionedTwice) {
        expect(deleteEntries.filter((e) => e.kind === "entity" && e.key === key)).toHaveLength(1);
      }
      const survivors = new Set((await kgrag.services.store.listEntities()).map((e) => e.key));
      for (const e of deleteEntries.filter((x) => x.kind === "entity")) {
        expect(e.action).toBe(survivors.has(e.key) ? "update" : "delete");
      }

      // Only communities whose content changed got a new report; the rest kept theirs.
      const communitiesAfter = await kgrag.services.store.listCommunities();
      const changed = changedCommunities(communitiesBefore, communitiesAfter);
      expect(changed.length).toBeGreaterThan(0);
      expect(changed.length).toBeLessThan(communitiesAfter.length);
      expect(reportWriter).toHaveBeenCalledTimes(changed.length);
      expect(communitiesAfter.every((c) => c.report !== null && c.reportHash === c.contentHash)).toBe(true);

      const clean = await open("clean");
      try {
        const remaining = paths.filter((_, i) => !doomedIndexes.includes(i));
        await clean.index(remaining);
        expect(await graphSnapshot(kgrag.services.store)).toEqual(await graphSnapshot(clean.services.store));
      } finally {
        await clean.close();
      }
    } finally {
      await kgrag.close();
    }
  });

  it("`kgrag delete` refuses unknown ids before deleting anything, then removes documents", async () => {
    const kgrag = await open("ws");
    const indexed = await kgrag.index([join(root, "corpus")]);
    await kgrag.close();
    const [first, second] = indexed.added;
    const ws = join(root, "ws");

    const typo = await runMain(["delete", first ?? "", second ?? "", "nope", "--workspace", ws, "--json"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/No document with id nope .*nothing was deleted/);
    const untouched = await open("ws");
    expect((await untouched.services.store.counts()).documents).toBe(paths.length);
    await untouched.close();

    const result = await runMain(["delete", first ?? "", second ?? "", "--workspace", ws, "--json"]);
    expect(result.code).toBe(0);
    const output = jsonOutput<{ deleted: string[]; counts: { documents: number } }>(result);
    expect(output.deleted).toEqual([first, second]);
    expect(output.counts.documents).toBe(paths.length - 2);

    const clean = await open("clean");
    await clean.index(paths.slice(2));
    await clean.close();
    expect(await workspaceSnapshot(join(root, "ws"))).toEqual(await workspaceSnapshot(join(root, "clean")));
  });
});

describe("deleting documents (LLM path, scripted server)", () => {
  let root: string;
  let server: ScriptedServer;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-delete-llm-"));
    server = await startLifecycleServer();
  });

  afterEach(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  const open = (name: string) =>
    createKgrag({
      env: llmEnv(server.baseURL),
      config: { workspace: join(root, name), merge: { summaryMinFragments: 3 } },
    });

  it("rebuilds from stored extractions with no extraction call and rewrites only changed reports", async () => {
    const paths = writeCorpus(join(root, "corpus"), 12, 5);
    const kgrag = await open("ws");
    try {
      const indexed = await kgrag.index(paths);
      expect(indexed.failures).toEqual([]);
      expect(server.count("summarize")).toBeGreaterThan(0);
      const communitiesBefore = await kgrag.services.store.listCommunities();
      const before = server.countByStage();

      await kgrag.deleteDocuments([0, 3, 6].map((i) => indexed.added[i] ?? ""));

      const after = server.countByStage();
      expect(after.extract).toBe(before.extract);
      expect(after.glean).toBe(before.glean);
      const communitiesAfter = await kgrag.services.store.listCommunities();
      const changed = changedCommunities(communitiesBefore, communitiesAfter);
      const reportCalls = (after.report ?? 0) - (before.report ?? 0);
      expect(changed.length).toBeGreaterThan(0);
      expect(changed.length).toBeLessThan(communitiesAfter.length);
      expect(reportCalls).toBeLessThanOrEqual(changed.length);
      expect(
        communitiesAfter.every((c) => c.report?.method === "llm" && c.reportHash === c.contentHash),
      ).toBe(true);

      const clean = await open("clean");
      try {
        await clean.index(paths.filter((_, i) => ![0, 3, 6].includes(i)));
        expect(await graphSnapshot(kgrag.services.store)).toEqual(await graphSnapshot(clean.services.store));
      } finally {
        await clean.close();
      }
    } finally {
      await kgrag.close();
    }
  });
});
