import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { createKgrag, type Kgrag } from "../../src/kgrag.js";
import { OptionsError } from "../../src/options-error.js";
import { UnknownDocumentError } from "../../src/pipeline/document-metadata.js";
import type { HistoryEntry } from "../../src/types.js";
import { hashJson } from "../../src/util/hash.js";
import { runMain } from "../support/cli-in-process.js";
import { graphSnapshot } from "../support/graph-snapshot.js";

/** A document whose title and text are unchanged but whose metadata changed is updated in place. */
let root: string;
let docs: string;
let kg: Kgrag;
let extract: MockInstance;

const robots = "Lumen Robotics builds warehouse robots in Lisbon. Ines Varga leads Lumen Robotics.";
const towns = (metadata: Record<string, string>) =>
  `${JSON.stringify({ id: "porto", text: "Porto is a city on the Douro river.", metadata })}\n`;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), "kgrag-meta-update-"));
  docs = join(root, "docs");
  mkdirSync(docs);
  writeFileSync(join(docs, "robots.txt"), robots);
  writeFileSync(join(docs, "robots.txt.meta.json"), JSON.stringify({ team: "robotics", year: 2021 }));
  writeFileSync(join(docs, "towns.jsonl"), towns({ team: "cities" }));
  kg = await createKgrag({ env: {}, config: { workspace: join(root, "ws") } });
  extract = vi.spyOn(kg.components.extractor, "extract");
});

afterEach(async () => {
  await kg.close();
  rmSync(root, { recursive: true, force: true });
});

const store = () => kg.services.store;
const robotsId = async () =>
  (await store().listDocuments()).find((d) => d.path?.endsWith("robots.txt"))?.id ?? "";
const chunksOf = async (docId: string) => new Set((await store().listChunks(docId)).map((c) => c.id));
const inScope = (metadata: Record<string, string>) => store().chunkIdsInScope({ metadata });

describe("metadata-only document updates", () => {
  it("re-indexing with changed --meta, sidecar and JSONL metadata updates the records, extracting nothing", async () => {
    await kg.index([docs], { metadata: { project: "atlas" } });
    const id = await robotsId();
    const before = await graphSnapshot(store());
    const communitiesBefore = await store().listCommunities();
    extract.mockClear();

    writeFileSync(join(docs, "robots.txt.meta.json"), JSON.stringify({ team: "drones", year: 2021 }));
    writeFileSync(join(docs, "towns.jsonl"), towns({ team: "harbours" }));
    const summary = await kg.index([docs], { metadata: { project: "zenith" } });

    expect(extract).not.toHaveBeenCalled();
    expect([...summary.metadataUpdated].sort()).toEqual([id, "porto"].sort());
    expect(summary.added).toEqual([]);
    expect(summary.updated).toEqual([]);
    expect(summary.unchanged).toEqual([]);
    expect(summary.embedding.requests).toBe(0);
    expect(await graphSnapshot(store())).toEqual(before);
    expect(await store().listCommunities()).toEqual(communitiesBefore);
    expect((await store().getDocument(id))?.metadata).toMatchObject({ team: "drones", project: "zenith" });

    // The scope filters see the new values only.
    expect(await inScope({ team: "drones" })).toEqual(await chunksOf(id));
    expect(await inScope({ team: "harbours" })).toEqual(await chunksOf("porto"));
    expect((await inScope({ team: "robotics" })).size).toBe(0);
    expect((await inScope({ project: "atlas" })).size).toBe(0);
    const scoped = await kg.query("What does Lumen Robotics build?", {
      mode: "naive",
      contextOnly: true,
      metadata: { team: "drones" },
    });
    expect(new Set(scoped.references.map((r) => r.docId))).toEqual(new Set([id]));
    await expect(
      kg.query("What does Lumen Robotics build?", { mode: "naive", metadata: { team: "robotics" } }),
    ).rejects.toThrow(/No document has team=robotics/);

    // The same metadata again: unchanged.
    const again = await kg.index([docs], { metadata: { project: "zenith" } });
    expect(again.metadataUpdated).toEqual([]);
    expect([...again.unchanged].sort()).toEqual([id, "porto"].sort());
  });

  it("a changed title or text is still an update, extracted again", async () => {
    await kg.index([docs]);
    extract.mockClear();
    writeFileSync(join(docs, "towns.jsonl"), towns({ team: "harbours" }).replace("Douro", "Tagus"));
    const summary = await kg.index([docs]);
    expect(summary.updated).toEqual(["porto"]);
    expect(summary.metadataUpdated).toEqual([]);
    expect(extract).toHaveBeenCalled();
  });

  it("a document indexed before, its hash holding its metadata, is neither re-extracted nor left unmatched", async () => {
    await kg.index([docs]);
    const id = await robotsId();
    const record = await store().getDocument(id);
    if (!record) throw new Error("not indexed");
    const { title, metadata } = record;
    const { source: _source, ...notProvenance } = metadata;
    // The two formats stored by earlier versions: with the metadata other than provenance, and with all of it.
    for (const stored of [
      hashJson({ title, text: robots, metadata: notProvenance }),
      hashJson({ title, text: robots, metadata }),
    ]) {
      await store().upsertDocument({ ...record, contentHash: stored });
      extract.mockClear();
      const same = await kg.index([docs]);
      expect(extract).not.toHaveBeenCalled();
      expect(same.unchanged).toContain(id);
      // The hash is rewritten to the current format (title and text) on the way.
      expect((await store().getDocument(id))?.contentHash).toBe(record.contentHash);

      await store().upsertDocument({ ...record, contentHash: stored });
      writeFileSync(join(docs, "robots.txt.meta.json"), JSON.stringify({ team: "drones" }));
      const changed = await kg.index([docs]);
      expect(extract).not.toHaveBeenCalled();
      expect(changed.metadataUpdated).toEqual([id]);
      expect((await store().getDocument(id))?.contentHash).toBe(record.contentHash);
      writeFileSync(join(docs, "robots.txt.meta.json"), JSON.stringify({ team: "robotics", year: 2021 }));
      await kg.index([docs]);
    }
  });

  it("updateDocumentMetadata rewrites an earlier version's hash, so a file read with other metadata is not re-extracted", async () => {
    await kg.index([docs]);
    const id = await robotsId();
    const record = await store().getDocument(id);
    if (!record) throw new Error("not indexed");
    const { title, metadata } = record;
    const { source: _source, ...notProvenance } = metadata;
    for (const stored of [
      hashJson({ title, text: robots, metadata: notProvenance }),
      hashJson({ title, text: robots, metadata }),
    ]) {
      await store().upsertDocument({ ...record, contentHash: stored });
      // The patched record no longer holds the metadata the old hash was computed with.
      const patched = await kg.updateDocumentMetadata(id, { reviewed: true });
      expect(patched.contentHash).toBe(record.contentHash);
      expect((await store().getDocument(id))?.contentHash).toBe(record.contentHash);

      extract.mockClear();
      writeFileSync(join(docs, "robots.txt.meta.json"), JSON.stringify({ team: "drones" }));
      const changed = await kg.index([docs]);
      expect(extract).not.toHaveBeenCalled();
      expect(changed.updated).toEqual([]);
      expect(changed.metadataUpdated).toEqual([id]);
      expect((await store().getDocument(id))?.metadata).toMatchObject({ team: "drones" });
      writeFileSync(join(docs, "robots.txt.meta.json"), JSON.stringify({ team: "robotics", year: 2021 }));
      await kg.index([docs]);
    }
  });

  it("kg.updateDocumentMetadata sets and removes keys in place; bad input changes nothing", async () => {
    await kg.index([docs]);
    const id = await robotsId();
    const before = await graphSnapshot(store());
    extract.mockClear();

    const updated = await kg.updateDocumentMetadata(id, { team: "drones", year: null, reviewed: true });
    expect(updated.metadata).toEqual({
      source: join(docs, "robots.txt"),
      format: "text",
      team: "drones",
      reviewed: true,
    });
    expect((await store().getDocument(id))?.metadata).toEqual(updated.metadata);
    expect(extract).not.toHaveBeenCalled();
    expect(await graphSnapshot(store())).toEqual(before);
    expect(await inScope({ team: "drones" })).toEqual(await chunksOf(id));
    expect(await inScope({ reviewed: "true" })).toEqual(await chunksOf(id));
    expect((await inScope({ team: "robotics" })).size).toBe(0);

    const stored = await store().getDocument(id);
    await expect(kg.updateDocumentMetadata("nope", { team: "x" })).rejects.toThrow(UnknownDocumentError);
    await expect(kg.updateDocumentMetadata(id, { team: ["x"] } as never)).rejects.toThrow(
      /Invalid metadata: team: must be a string, number, boolean, or null/,
    );
    await expect(kg.updateDocumentMetadata(id, { source: "elsewhere" })).rejects.toThrow(
      /source: kgrag's own key/,
    );
    await expect(kg.updateDocumentMetadata(id, {})).rejects.toThrow(OptionsError);
    await expect(kg.updateDocumentMetadata(id, "team=x" as never)).rejects.toThrow(OptionsError);
    expect(await store().getDocument(id)).toEqual(stored);

    // The next index of the file gives it the file's metadata again: a metadata update, no extraction.
    const reindexed = await kg.index([docs]);
    expect(reindexed.metadataUpdated).toEqual([id]);
    expect(extract).not.toHaveBeenCalled();
    expect((await store().getDocument(id))?.metadata).toMatchObject({ team: "robotics", year: 2021 });
  });

  it("records each metadata edit in the workspace history: keys set and removed, old and new values, who", async () => {
    await kg.index([docs]);
    const id = await robotsId();
    const graphHistory = (await store().listHistory()).length;

    await kg.updateDocumentMetadata(id, { team: "drones", year: null, reviewed: true }, { by: "alice" });
    // Nothing changes: nothing is recorded.
    await kg.updateDocumentMetadata(id, { team: "drones" });
    await expect(kg.updateDocumentMetadata(id, { team: "x" }, { by: "" })).rejects.toThrow(OptionsError);
    // A name with a line break or a terminal escape would garble the history table.
    await expect(kg.updateDocumentMetadata(id, { team: "x" }, { by: "eve\nalice" })).rejects.toThrow(
      /by: must not hold control characters/,
    );
    await expect(kg.updateDocumentMetadata(id, { team: "x" }, { by: "\u001b[31meve" })).rejects.toThrow(
      OptionsError,
    );
    await expect(kg.updateDocumentMetadata(id, { team: "x" }, { who: "bob" } as never)).rejects.toThrow(
      /Unknown updateDocumentMetadata option "who"/,
    );

    const entries = (await kg.entities.history()).slice(graphHistory);
    expect(entries).toEqual([
      {
        kind: "document",
        key: id,
        action: "update",
        oldDescription: JSON.stringify({ reviewed: null, team: "robotics", year: 2021 }),
        newDescription: JSON.stringify({ reviewed: true, team: "drones", year: null }),
        cause: "metadata set reviewed, team; removed year by alice",
        at: (await store().getDocument(id))?.updatedAt,
      },
    ]);
  });

  it("lists a metadata edit's values as they were set: runs of spaces and <SEP> in them kept", async () => {
    await kg.index([docs]);
    const id = await robotsId();
    const values = { owner: "Vale  & Sons", note: "north<SEP>south" };
    await kg.updateDocumentMetadata(id, values, { by: "alice" });
    const [entry] = (await kg.entities.history()).filter((e) => e.kind === "document");
    // The history's values are JSON, not a graph description made readable.
    expect(JSON.parse(entry?.newDescription ?? "null")).toEqual(values);
  });

  it("keeps a document's edits out of the history of an entity whose key is the document's id", async () => {
    await kg.index([docs]);
    // The document "porto" and the entity Porto (key "porto") share a key.
    expect(await store().getDocument("porto")).toBeDefined();
    expect((await kg.entities.get("Porto")).key).toBe("porto");
    await kg.updateDocumentMetadata("porto", { team: "harbours" }, { by: "alice" });
    const entityHistory = await kg.entities.history("Porto");
    expect(entityHistory.length).toBeGreaterThan(0);
    expect(entityHistory.filter((e) => e.kind === "document")).toEqual([]);
  });

  it("kgrag docs meta sets and unsets keys; an unknown id or a kgrag key is refused with exit 2", async () => {
    await kg.index([docs]);
    const id = await robotsId();
    await kg.close();
    const ws = join(root, "ws");
    const set = await runMain([
      "docs",
      "meta",
      id,
      "team=drones",
      "owner=Ines Varga",
      "--unset",
      "year",
      "--workspace",
      ws,
      "--json",
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({
      id,
      title: expect.any(String),
      metadata: { source: join(docs, "robots.txt"), format: "text", team: "drones", owner: "Ines Varga" },
    });
    const shown = await runMain(["docs", "meta", id, "--workspace", ws]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/owner\s+Ines Varga/);

    const unknown = await runMain(["docs", "meta", "nope", "team=x", "--workspace", ws]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/No document with id "nope"/);
    const reserved = await runMain(["docs", "meta", id, "line=3", "--workspace", ws]);
    expect(reserved.code).toBe(2);
    expect(reserved.stderr).toMatch(/line: kgrag's own key/);
    const pairAfterUnset = await runMain([
      "docs",
      "meta",
      id,
      "--unset",
      "owner",
      "team=x",
      "--workspace",
      ws,
    ]);
    expect(pairAfterUnset.code).toBe(2);
    expect(pairAfterUnset.stderr).toMatch(/--unset takes keys, got "team=x"/);
    const noPair = await runMain(["docs", "meta", id, "team", "--workspace", ws]);
    expect(noPair.code).toBe(2);
    expect(noPair.stderr).toMatch(/expects key=value, got "team"/);

    // The edits are in the history `kgrag entities history` lists, with who made them.
    const byCarol = await runMain(["docs", "meta", id, "team=rovers", "--by", "carol", "--workspace", ws]);
    expect(byCarol.code, byCarol.stderr).toBe(0);
    const history = await runMain(["entities", "history", "--workspace", ws, "--json"]);
    const documentEntries = (JSON.parse(history.stdout) as { history: HistoryEntry[] }).history.filter(
      (e) => e.kind === "document",
    );
    expect(documentEntries.map((e) => [e.key, e.cause])).toEqual([
      [id, expect.stringMatching(/^metadata set owner, team; removed year by \S+$/)],
      [id, "metadata set team by carol"],
    ]);

    const query = await runMain([
      "query",
      "Who leads Lumen Robotics?",
      "--workspace",
      ws,
      "--filter",
      "owner=Ines Varga",
      "--context-only",
      "--json",
    ]);
    expect(query.code, query.stderr).toBe(0);
    expect(JSON.parse(query.stdout).references.length).toBeGreaterThan(0);

    writeFileSync(join(docs, "robots.txt.meta.json"), JSON.stringify({ team: "robotics" }));
    const index = await runMain(["index", docs, "--workspace", ws, "--json"]);
    expect(index.code, index.stderr).toBe(0);
    expect(JSON.parse(index.stdout)).toMatchObject({
      metadataUpdated: 1,
      unchanged: 1,
      added: 0,
      updated: 0,
    });
    kg = await createKgrag({ env: {}, config: { workspace: ws } });
  });
});
