import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileDocumentId } from "../../src/ingest/loaders.js";
import { createKgrag } from "../../src/kgrag.js";
import { openSqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import { jsonOutput } from "../support/cli-child.js";
import { runMain } from "../support/cli-in-process.js";
import { communityShape, graphSnapshot, workspaceSnapshot } from "../support/graph-snapshot.js";
import { passage, seededRandom, writeCorpus } from "../support/lifecycle-corpus.js";
import { type ScriptedServer, startScriptedOpenAI } from "../support/scripted-openai-server.js";

/**
 * ~6 MB of .jsonl: 100 short passages, each line carrying 64 KB of a field kgrag ignores. (The
 * memory of streaming such a file, 50 MB of it, is measured by bench/lifecycle-memory.ts.)
 */
function writeBigJsonl(path: string): void {
  const padding = "x".repeat(64 * 1024);
  const random = seededRandom(3);
  const fd = openSync(path, "w");
  for (let n = 0; n < 100; n++) {
    writeSync(
      fd,
      `${JSON.stringify({ id: `archive-${n}`, text: `Archive entry ${n}. ${passage(n, random)}`, padding })}\n`,
    );
  }
  closeSync(fd);
}

interface IndexJson {
  documents: number;
  failed: number;
  skipped: { path: string; reason: string; docId?: string }[];
  badLines: { path: string; line: number; error: string }[];
  failures: { docId: string; error: string }[];
}

describe("bad input never costs what is already indexed", () => {
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "kgrag-bad-input-"));
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("reports binary, mis-encoded, empty, oversized and malformed input clearly and reads a padded .jsonl", async () => {
    const ws = join(root, "ws");
    const base = join(root, "base");
    writeCorpus(base, 12, 61);
    const first = await runMain(["index", base, "--workspace", ws, "--json"]);
    expect(first.code).toBe(0);
    const before = await workspaceSnapshot(ws);

    const bad = join(root, "bad");
    mkdirSync(bad);
    writeFileSync(join(bad, "binary.txt"), Buffer.from([0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00, 0xff, 0xfe]));
    writeFileSync(join(bad, "latin1.txt"), Buffer.from("Caf\xe9 Lumen in Lisbon.", "latin1"));
    writeFileSync(
      join(bad, "utf16.txt"),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("Ines Duarte visited Porto.", "utf16le")]),
    );
    writeFileSync(join(bad, "empty.md"), "");
    writeFileSync(join(bad, "blank.txt"), "  \n\t\n");
    writeFileSync(join(bad, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]));
    // Sparse: over the whole-file cap without writing 200 MB.
    const huge = openSync(join(bad, "huge.txt"), "w");
    writeSync(huge, "x", 201 * 1024 * 1024);
    closeSync(huge);
    writeFileSync(
      join(bad, "lines.jsonl"),
      [
        JSON.stringify({ id: "line-ok", text: "Tomas Weber joined Lumen Robotics in Porto." }),
        "{not json",
        JSON.stringify({ id: "no-text", title: "Missing text" }),
        Buffer.from([0x7b, 0x22, 0x74, 0x65, 0x78, 0x74, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d]).toString(
          "latin1",
        ),
        JSON.stringify({ id: "line-ok", text: "A second line reusing the id." }),
        JSON.stringify({ id: "blank", text: "   " }),
      ].join("\n"),
      "latin1",
    );
    writeBigJsonl(join(bad, "big.jsonl"));

    const second = await runMain(["index", bad, "--workspace", ws, "--json"]);
    // Nothing failed: every bad input is skipped with its reason, so running again is not asked for;
    // unreadable .jsonl lines are bad input (exit 2, as in `query --batch`), the good lines indexed.
    expect(second.code).toBe(2);
    const summary = jsonOutput<IndexJson>(second);
    const reasonOf = (suffix: string) => summary.skipped.find((s) => s.path.endsWith(suffix))?.reason;
    expect(reasonOf("binary.txt")).toMatch(/binary content/);
    expect(reasonOf("latin1.txt")).toMatch(/not valid UTF-8 text: convert it to UTF-8/);
    expect(reasonOf("image.png")).toMatch(/unsupported file type \.png/);
    expect(reasonOf("huge.txt")).toMatch(/too large to load whole .*convert it to \.jsonl/);
    const lines = join(bad, "lines.jsonl");
    expect(summary.badLines).toEqual([
      { path: lines, line: 2, error: expect.stringMatching(/not valid JSON/) },
      { path: lines, line: 3, error: expect.stringMatching(/text/) },
      { path: lines, line: 4, error: expect.stringMatching(/not valid UTF-8/) },
    ]);
    for (const bad of summary.badLines) expect(second.stderr).toContain(`kgrag: ${JSON.stringify(bad)}\n`);
    expect(reasonOf("lines.jsonl:5")).toMatch(/duplicate document id line-ok/);
    // Empty files and lines are skipped, not failed, each naming the document it would have been.
    const empties = summary.skipped.filter((s) => /^empty document/.test(s.reason));
    expect(empties.map((s) => [s.path, s.docId])).toEqual([
      [join(bad, "blank.txt"), fileDocumentId(join(bad, "blank.txt"))],
      [join(bad, "empty.md"), fileDocumentId(join(bad, "empty.md"))],
      [`${join(bad, "lines.jsonl")}:6`, "blank"],
    ]);
    expect(summary.failures).toEqual([]);
    expect(summary.failed).toBe(0);
    // One line on stderr for each input left out.
    for (const skip of summary.skipped) expect(second.stderr).toContain(`skipped ${skip.path}: `);
    // Every line of the padded .jsonl became a document, the ignored field left out of it.
    expect(summary.documents).toBe(before.documents.length + 100 + 1 + 1);
    const store = await openSqliteStore(ws);
    try {
      const archived = await store.getDocument("archive-7");
      expect(archived?.metadata).toEqual({ source: join(bad, "big.jsonl"), format: "jsonl", line: 8 });
    } finally {
      await store.close();
    }

    const after = await workspaceSnapshot(ws);
    for (const doc of before.documents) expect(after.documents).toContainEqual(doc);
    for (const chunk of before.chunks) expect(after.chunks).toContainEqual(chunk);
    for (const vector of before.vectors.chunks) expect(after.vectors.chunks).toContain(vector);
    const utf16 = after.chunks.find((c) => c.docId === fileDocumentId(join(bad, "utf16.txt")));
    expect(utf16?.text).toBe("Ines Duarte visited Porto.");
  }, 120_000);
});

describe("an embedding endpoint that returns the wrong dimension", () => {
  let root: string;
  let server: ScriptedServer;
  let dimension: number;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-dimension-"));
    dimension = 32;
    server = await startScriptedOpenAI({
      embeddings: (call) => ({
        vectors: call.input.map((_, i) => Array.from({ length: dimension }, (_, j) => ((i + j) % 7) - 3)),
      }),
    });
  });

  afterEach(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** Offline extraction, embeddings through the server. */
  const env = (extra: Record<string, string> = {}) => ({
    KGRAG_EMBEDDING_BASE_URL: server.baseURL,
    KGRAG_EMBEDDING_API_KEY: "test-key",
    KGRAG_EMBEDDING_MODEL: "scripted-embed",
    KGRAG_EMBEDDING_DIM: "32",
    ...extra,
  });

  it("fails the run naming both dimensions, loses nothing, and the next run finishes the same documents", async () => {
    const paths = writeCorpus(join(root, "corpus"), 12, 71);
    const kgrag = await createKgrag({ env: env(), config: { workspace: join(root, "ws") } });
    try {
      await kgrag.index(paths.slice(0, 8));
      const before = await graphSnapshot(kgrag.services.store);

      dimension = 16;
      await expect(kgrag.index(paths)).rejects.toThrow(/returned vectors of dimension 16, expected 32/);
      const docs = await kgrag.services.store.listDocuments();
      const unfinished = docs.filter((d) => d.status !== "processed");
      expect(unfinished.map((d) => d.path).sort()).toEqual(paths.slice(8).sort());
      expect(
        unfinished.every((d) => d.status === "failed" && /dimension 16, expected 32/.test(d.error ?? "")),
      ).toBe(true);
      const during = await graphSnapshot(kgrag.services.store);
      for (const vector of before.vectors.chunks) expect(during.vectors.chunks).toContain(vector);
      expect(during.documents.filter((d) => d.status === "processed")).toEqual(before.documents);

      // Reopening with no dimension configured takes the dimension the workspace recorded for this
      // model (no probe request); the endpoint's vectors of another size are refused as clearly.
      const reopened = await createKgrag({
        env: env({ KGRAG_EMBEDDING_DIM: "" }),
        config: { workspace: join(root, "ws") },
      });
      try {
        await expect(
          reopened.query("Who is mentioned?", { mode: "naive", contextOnly: true }),
        ).rejects.toThrow(/returned vectors of dimension 16, expected 32/);
      } finally {
        await reopened.close();
      }

      dimension = 32;
      const retry = await kgrag.index(paths);
      expect(retry.resumed.sort()).toEqual(paths.slice(8).map(fileDocumentId).sort());
      expect(retry.failures).toEqual([]);
    } finally {
      await kgrag.close();
    }
    // The same history without the failure: 8 documents, then all 12 (communities are warm-started
    // from the stored hierarchy, so a workspace indexed at once may cluster differently).
    const clean = await createKgrag({ env: env(), config: { workspace: join(root, "clean") } });
    await clean.index(paths.slice(0, 8));
    await clean.index(paths);
    const communities = async (store: typeof clean.services.store) =>
      communityShape(await store.listCommunities());
    const cleanCommunities = await communities(clean.services.store);
    await clean.close();
    expect(await workspaceSnapshot(join(root, "ws"))).toEqual(await workspaceSnapshot(join(root, "clean")));
    const reopened = await createKgrag({ env: env(), config: { workspace: join(root, "ws") } });
    try {
      expect(await communities(reopened.services.store)).toEqual(cleanCommunities);
    } finally {
      await reopened.close();
    }
  });
});
