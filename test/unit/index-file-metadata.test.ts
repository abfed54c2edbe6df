import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createKgrag, type Kgrag } from "../../src/kgrag.js";
import { runMain } from "../support/cli-in-process.js";

/** Metadata for files that have none of their own: `--meta key=value` and `<file>.meta.json`. */
let root: string;
let docs: string;
let kg: Kgrag;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), "kgrag-file-meta-"));
  docs = join(root, "docs");
  mkdirSync(docs);
  writeFileSync(join(docs, "robots.txt"), "Lumen Robotics builds warehouse robots in Lisbon.");
  writeFileSync(join(docs, "robots.txt.meta.json"), JSON.stringify({ team: "robotics", year: 2021 }));
  writeFileSync(join(docs, "harbour.md"), "# Harbour\n\nHarbour Light is a lighthouse in Vessen.");
  writeFileSync(
    join(docs, "towns.jsonl"),
    `${JSON.stringify({ id: "porto", text: "Porto is a city on the Douro.", metadata: { team: "cities" } })}\n` +
      `${JSON.stringify({ id: "faro", text: "Faro is a town in the Algarve." })}\n`,
  );
  writeFileSync(join(docs, "towns.jsonl.meta.json"), JSON.stringify({ team: "places", region: "south" }));
  writeFileSync(join(docs, "gone.pdf.meta.json"), JSON.stringify({ team: "nobody" }));
  writeFileSync(join(docs, "broken.txt"), "Broken Tower stands in Evora.");
  writeFileSync(join(docs, "broken.txt.meta.json"), JSON.stringify(["not", "an", "object"]));
  kg = await createKgrag({ env: {}, config: { workspace: join(root, "ws") } });
});

afterEach(async () => {
  await kg.close();
  rmSync(root, { recursive: true, force: true });
});

const metadataOf = async (id: string) => (await kg.services.store.getDocument(id))?.metadata;
const idOfFile = async (name: string) =>
  (await kg.services.store.listDocuments()).find((d) => d.path?.endsWith(name))?.id ?? "";

describe("per-file metadata", () => {
  it("takes the call's metadata and each file's sidecar, the more specific winning, for the query filters", async () => {
    const summary = await kg.index([docs], {
      communities: false,
      metadata: { project: "atlas", team: "all" },
    });
    expect(await metadataOf(await idOfFile("robots.txt"))).toMatchObject({
      project: "atlas",
      team: "robotics",
      year: 2021,
      format: "text",
    });
    expect(await metadataOf(await idOfFile("harbour.md"))).toMatchObject({ project: "atlas", team: "all" });
    // A .jsonl sidecar gives its lines defaults; a line's own metadata wins.
    expect(await metadataOf("porto")).toMatchObject({ project: "atlas", team: "cities", region: "south" });
    expect(await metadataOf("faro")).toMatchObject({ project: "atlas", team: "places", region: "south" });
    // Sidecars are not documents; one that describes nothing, or cannot be used, is reported.
    const skipped = summary.skipped.map((s) => `${s.path.slice(docs.length + 1)}: ${s.reason}`);
    expect(skipped).toEqual([
      expect.stringMatching(
        /^broken\.txt: its metadata file .*broken\.txt\.meta\.json must be one JSON object/,
      ),
      expect.stringMatching(/^gone\.pdf\.meta\.json: a metadata file for .*gone\.pdf, which does not exist$/),
    ]);
    expect(await idOfFile("broken.txt")).toBe("");

    const filtered = await kg.query("What does Lumen Robotics build?", {
      mode: "naive",
      contextOnly: true,
      metadata: { team: "robotics" },
    });
    expect(new Set(filtered.references.map((r) => r.docId))).toEqual(new Set([await idOfFile("robots.txt")]));
    const none = await kg.query("What does Lumen Robotics build?", {
      mode: "naive",
      contextOnly: true,
      metadata: { team: "places" },
    });
    expect(none.references.map((r) => r.docId)).not.toContain(await idOfFile("robots.txt"));
  });

  it("takes a sidecar by its lower-case name only, as it is read: a .META.JSON is an ordinary file", async () => {
    const upper = join(root, "upper");
    mkdirSync(upper);
    writeFileSync(join(upper, "lisbon.txt"), "Lisbon lies on the Tagus.");
    writeFileSync(join(upper, "lisbon.txt.META.JSON"), JSON.stringify({ team: "shouting" }));
    const summary = await kg.index([upper], { communities: false });
    expect(await metadataOf(await idOfFile("lisbon.txt"))).not.toHaveProperty("team");
    // Not passed over silently as the sidecar of lisbon.txt: indexed, or reported.
    const reported = summary.skipped.some((s) => s.path.endsWith("lisbon.txt.META.JSON"));
    expect(reported || (await idOfFile("lisbon.txt.META.JSON")) !== "").toBe(true);
  });

  it("gives documents passed to the library the call's metadata under their own", async () => {
    await kg.index(
      [{ id: "x", title: "X", text: "Osric Venn built Harbour Light.", metadata: { team: "own" } }],
      {
        communities: false,
        metadata: { team: "shared", project: "atlas" },
      },
    );
    expect(await metadataOf("x")).toEqual({ team: "own", project: "atlas" });
    await expect(kg.index([docs], { metadata: { team: ["a"] } as never })).rejects.toThrow(/metadata/);
  });

  it("kgrag index --meta key=value, repeatable, refusing a pair without =", async () => {
    await kg.close();
    const ws = join(root, "cli-ws");
    const file = join(docs, "harbour.md");
    const bad = await runMain(["index", file, "--workspace", ws, "--meta", "project"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--meta expects key=value, got "project"/);
    const twice = await runMain(["index", file, "--workspace", ws, "--meta", "a=1", "--meta", "a=2"]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/--meta a given twice/);
    const indexed = await runMain([
      "index",
      file,
      "--workspace",
      ws,
      "--meta",
      "project=atlas",
      "--meta",
      "owner=Ines Varga",
      "--no-communities",
    ]);
    expect(indexed.code, indexed.stderr).toBe(0);
    const query = await runMain([
      "query",
      "Where is Harbour Light?",
      "--workspace",
      ws,
      "--filter",
      "owner=Ines Varga",
      "--context-only",
      "--json",
    ]);
    expect(query.code, query.stderr).toBe(0);
    expect(JSON.parse(query.stdout).references.length).toBeGreaterThan(0);
    kg = await createKgrag({ env: {}, config: { workspace: ws } });
    const [doc] = await kg.services.store.listDocuments();
    expect(doc?.metadata).toMatchObject({ project: "atlas", owner: "Ines Varga", format: "markdown" });
  });
});
