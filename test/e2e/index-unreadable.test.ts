import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileDocumentId } from "../../src/ingest/loaders.js";
import { createKgrag } from "../../src/kgrag.js";
import { jsonOutput, runCli } from "../support/cli-child.js";
import { type InProcessResult, runMain } from "../support/cli-in-process.js";
import { minimalDocx, minimalPdf } from "../support/document-fixtures.js";

const HARBOR = "Harbor Light Expo opened in Vessen in 2021. Mara Quell gave the opening talk.";
const REPORT = "Tidewell Robotics builds survey drones in Carrow Bay.";
const DOCX_UNREADABLE = "not a readable .docx file (corrupt or not a Word document)";

interface IndexJson {
  removed: string[];
  missing: { docId: string; path: string }[];
  skipped: { path: string; reason: string; docId?: string }[];
}

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "kgrag-unreadable-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("a file that is still there but cannot be read", () => {
  let docs: string;
  beforeEach(() => {
    docs = join(root, "docs");
    mkdirSync(docs);
  });

  const index = (...flags: string[]) =>
    runMain(["index", docs, "--workspace", join(root, "ws"), "--no-communities", ...flags]);

  it("keeps its document through `index --prune` and reports the read error, not a gone file", async () => {
    writeFileSync(join(docs, "a.txt"), HARBOR);
    const report = join(docs, "report.docx");
    writeFileSync(report, minimalDocx([REPORT]));
    expect((await index()).code).toBe(0);

    writeFileSync(report, "these bytes are not a zip archive");
    const plain = await index();
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toMatch(/file gone/);

    const pruned = await index("--prune", "--json");
    expect(pruned.code).toBe(0);
    const summary = jsonOutput<IndexJson>(pruned);
    expect(summary.removed).toEqual([]);
    expect(summary.missing).toEqual([]);
    expect(summary.skipped).toEqual([
      {
        path: report,
        reason: expect.stringMatching(/^not a readable \.docx file .*; its indexed version is kept$/),
        docId: fileDocumentId(report),
      },
    ]);
    expect(pruned.stderr).toContain(`skipped ${report}: ${DOCX_UNREADABLE}`);
    expect(pruned.stderr).not.toMatch(/https?:/);

    const kgrag = await createKgrag({ env: {}, config: { workspace: join(root, "ws") } });
    try {
      expect((await kgrag.services.store.getDocument(fileDocumentId(report)))?.status).toBe("processed");
      const chunks = await kgrag.services.store.listChunks(fileDocumentId(report));
      expect(chunks.map((c) => c.text).join(" ")).toContain("Tidewell Robotics");
    } finally {
      await kgrag.close();
    }
  });

  it("keeps a .jsonl line's document while the line is unreadable, and prunes a line that is gone", async () => {
    const lines = join(docs, "lines.jsonl");
    const line = (id: string, text: string) => Buffer.from(`${JSON.stringify({ id, text })}\n`);
    writeFileSync(lines, Buffer.concat([line("harbor", HARBOR), line("report", REPORT), line("x", "X.")]));
    const kgrag = await createKgrag({ env: {}, config: { workspace: join(root, "ws") } });
    try {
      await kgrag.index([docs]);
      // Line 2 loses its UTF-8 validity (a Latin-1 byte), line 3 is deleted.
      const latin1 = Buffer.from(`{"id":"report","text":"Caf\xe9 ${REPORT}"}\n`, "latin1");
      writeFileSync(lines, Buffer.concat([line("harbor", HARBOR), latin1]));
      const summary = await kgrag.index([docs], { prune: true });
      expect(summary.skipped.map((s) => s.path)).toEqual([`${lines}:2`]);
      // While any line of the file cannot be read, none of its documents is taken for gone.
      expect(summary.removed).toEqual([]);
      expect(await kgrag.services.store.getDocument("report")).toBeDefined();

      writeFileSync(lines, line("harbor", HARBOR));
      const fixed = await kgrag.index([docs], { prune: true });
      expect(fixed.removed.sort()).toEqual(["report", "x"]);
    } finally {
      await kgrag.close();
    }
  });
});

describe("a .jsonl line that is gone while another line is skipped", () => {
  const line = (id: string, text: string) => `${JSON.stringify({ id, text })}\n`;

  // Neither skip can be the missing line: an empty line names its own document, and a duplicate's
  // id was loaded from another line.
  it.each([
    ["an empty line", `${JSON.stringify({ id: "blank", text: "" })}\n`],
    ["a duplicate line", line("harbor", "The same id again.")],
  ])("prunes the gone line's document beside %s", async (_, extra) => {
    const docs = join(root, "docs");
    mkdirSync(docs);
    const lines = join(docs, "lines.jsonl");
    writeFileSync(lines, line("harbor", HARBOR) + line("report", REPORT));
    const ws = join(root, "ws");
    const index = (...flags: string[]) =>
      runMain(["index", docs, "--workspace", ws, "--no-communities", "--json", ...flags]);
    expect((await index()).code).toBe(0);

    writeFileSync(lines, line("harbor", HARBOR) + extra);
    const plain = await index();
    expect(plain.code).toBe(0);
    expect(jsonOutput<IndexJson>(plain).missing).toEqual([{ docId: "report", path: lines }]);

    const pruned = await index("--prune");
    expect(pruned.code).toBe(0);
    const summary = jsonOutput<IndexJson>(pruned);
    expect(summary.removed).toEqual(["report"]);
    expect(summary.missing).toEqual([]);
    expect(summary.skipped.map((s) => s.path)).toEqual([`${lines}:2`]);
  });
});

describe("a file that failed before and cannot be read now", () => {
  it("is kept and reported without --prune, and removed with it", async () => {
    const docs = join(root, "docs");
    mkdirSync(docs);
    writeFileSync(join(docs, "a.txt"), HARBOR);
    const report = join(docs, "report.docx");
    writeFileSync(report, "these bytes are not a zip archive");
    const kgrag = await createKgrag({ env: {}, config: { workspace: join(root, "ws") } });
    try {
      const now = new Date().toISOString();
      await kgrag.services.store.upsertDocument({
        id: fileDocumentId(report),
        title: "report.docx",
        path: report,
        contentHash: "old",
        status: "failed",
        error: "embedding service unreachable",
        metadata: { source: report, format: "docx" },
        chunkCount: 0,
        createdAt: now,
        updatedAt: now,
      });
      const plain = await kgrag.index([docs], { communities: false });
      expect(plain.removed).toEqual([]);
      expect(plain.skipped).toEqual([
        {
          path: report,
          reason: expect.stringMatching(
            /^not a readable \.docx file.*; its failed document is kept: .*--prune/,
          ),
          docId: fileDocumentId(report),
        },
      ]);
      expect((await kgrag.services.store.getDocument(fileDocumentId(report)))?.status).toBe("failed");

      const pruned = await kgrag.index([docs], { communities: false, prune: true });
      expect(pruned.removed).toEqual([fileDocumentId(report)]);
      expect(pruned.failed).toBe(0);
      expect(pruned.skipped[0]?.reason).toMatch(/; its failed document was removed \(prune\)$/);
      expect(await kgrag.services.store.getDocument(fileDocumentId(report))).toBeUndefined();
    } finally {
      await kgrag.close();
    }
  });
});

describe("a file that failed part-way before and cannot be read now", () => {
  it("keeps its document even with --prune: its merged chunks are real facts", async () => {
    const docs = join(root, "docs");
    mkdirSync(docs);
    const report = join(docs, "report.txt");
    writeFileSync(report, REPORT);
    const kgrag = await createKgrag({ env: {}, config: { workspace: join(root, "ws") } });
    try {
      await kgrag.index([docs], { communities: false });
      const id = fileDocumentId(report);
      const stored = await kgrag.services.store.getDocument(id);
      expect(stored?.chunkCount).toBeGreaterThan(0);
      // A summary failed on the last run: the document is failed, with its chunks merged.
      if (stored) await kgrag.services.store.setDocumentStatus(id, "failed", "summary call failed");
      writeFileSync(report, Buffer.concat([Buffer.from(REPORT), Buffer.from([0xc3, 0x28])]));
      const pruned = await kgrag.index([docs], { communities: false, prune: true });
      expect(pruned.skipped.map((skip) => skip.path)).toEqual([report]);
      expect(pruned.removed).toEqual([]);
      expect((await kgrag.services.store.getDocument(id))?.chunkCount).toBe(stored?.chunkCount);
    } finally {
      await kgrag.close();
    }
  });
});

describe("kgrag index after every file of the folder was deleted", () => {
  it("reports the gone files without --prune and removes them with it, exiting 0", async () => {
    const docs = join(root, "docs");
    mkdirSync(docs);
    writeFileSync(join(docs, "a.txt"), HARBOR);
    writeFileSync(join(docs, "report.md"), REPORT);
    const ws = join(root, "ws");
    const index = (...flags: string[]) =>
      runMain(["index", docs, "--workspace", ws, "--no-communities", ...flags]);
    expect((await index()).code).toBe(0);
    rmSync(join(docs, "a.txt"));
    rmSync(join(docs, "report.md"));

    const plain = await index();
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain(`file gone: ${join(docs, "a.txt")}`);
    expect(plain.stdout).toMatch(/run with --prune to remove it/);

    const pruned = await index("--prune", "--json");
    expect(pruned.code).toBe(0);
    const summary = jsonOutput<IndexJson & { documents: number }>(pruned);
    expect(summary.removed.sort()).toEqual(
      [fileDocumentId(join(docs, "a.txt")), fileDocumentId(join(docs, "report.md"))].sort(),
    );
    expect(summary.documents).toBe(0);
  });
});

describe("kgrag index with nothing indexable", () => {
  const index = (path: string) => runMain(["index", path, "--workspace", join(root, "ws"), "--json"]);

  /** The one-line message that ends stderr. */
  const refusal = (result: InProcessResult) => result.stderr.trimEnd().split("\n").at(-1) ?? "";

  it("exits 2 for a file of an unsupported type only", async () => {
    const notes = join(root, "notes.xyz");
    writeFileSync(notes, HARBOR);
    const result = await index(notes);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`skipped ${notes}: unsupported file type .xyz`);
    expect(refusal(result)).toMatch(
      /^kgrag: Nothing to index in .*notes\.xyz: every input was skipped.*\.txt/,
    );
  });

  it("indexes a .pdf whose cross-reference table pdf.js repairs, printing none of pdf.js's warnings", async () => {
    // A separate process: pdf.js warns after the text is read, on the console, outside any redirect.
    const good = minimalPdf(["Carrow Bay survey log, kept by Mara Quell."]).toString("latin1");
    const broken = good
      .replace(/startxref\n\d+/, "startxref\n999999")
      .replace(/\d{10} 00000 n/g, "0000000001 00000 n");
    const pdf = join(root, "repaired.pdf");
    writeFileSync(pdf, Buffer.from(broken, "latin1"));
    const result = await runCli([
      "index",
      pdf,
      "--workspace",
      join(root, "ws-pdf"),
      "--no-communities",
      "--json",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ added: 1 });
    expect(result.stderr + result.stdout).not.toMatch(/Warning/);
  }, 60_000);

  it("follows community.enabled false in the config file when --no-communities is not given", async () => {
    const story = join(root, "story.txt");
    writeFileSync(story, `${HARBOR} Mara Quell later founded Quell Studios in Vessen.`);
    const config = join(root, "no-communities.json");
    writeFileSync(config, JSON.stringify({ community: { enabled: false } }));
    const result = await runMain([
      "--config",
      config,
      "index",
      story,
      "--workspace",
      join(root, "ws-nc"),
      "--json",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const kgrag = await createKgrag({ config: { workspace: join(root, "ws-nc") } });
    try {
      expect(await kgrag.services.store.listCommunities()).toEqual([]);
    } finally {
      await kgrag.close();
    }
  });

  it("counts many files of unsupported types by type in one line, still naming other skips", async () => {
    const mixed = join(root, "mixed");
    mkdirSync(mixed);
    writeFileSync(join(mixed, "story.txt"), HARBOR);
    writeFileSync(join(mixed, "empty.md"), "");
    for (let i = 0; i < 4; i++) writeFileSync(join(mixed, `photo-${i}.png`), "x");
    for (let i = 0; i < 3; i++) writeFileSync(join(mixed, `table-${i}.csv`), "a,b");
    const result = await index(mixed);
    expect(result.code).toBe(0);
    const lines = result.stderr.split("\n").filter((line) => line.startsWith("kgrag: skipped"));
    expect(lines).toEqual([
      expect.stringMatching(/^kgrag: skipped .*empty\.md: /),
      expect.stringMatching(
        /^kgrag: skipped 7 files of types kgrag does not read: \.png \(4\), \.csv \(3\);/,
      ),
    ]);
    // --json still lists each of them.
    expect(JSON.parse(result.stdout).skipped).toHaveLength(8);
  });

  it("exits 2 for a folder of empty files only, still printing the summary", async () => {
    const docs = join(root, "docs");
    mkdirSync(docs);
    writeFileSync(join(docs, "empty.md"), "");
    writeFileSync(join(docs, "blank.txt"), " \n");
    const result = await index(docs);
    expect(result.code).toBe(2);
    expect(jsonOutput<IndexJson>(result).skipped).toHaveLength(2);
    expect(refusal(result)).toMatch(/^kgrag: Nothing to index in .*docs: every input was skipped/);
  });

  it("exits 2 for a folder with no file of a supported type", async () => {
    const docs = join(root, "empty-folder");
    mkdirSync(docs);
    const result = await index(docs);
    expect(result.code).toBe(2);
    expect(refusal(result)).toMatch(/no file of a supported type was found/);
  });
});
