import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKgrag } from "../../src/kgrag.js";
import { DESCRIPTION_SEPARATOR, entityKey } from "../../src/merge/keys.js";
import type { QueryResult } from "../../src/query/result.js";
import type { EntityRecord } from "../../src/types.js";
import { runMain } from "../support/cli-in-process.js";

/** Mara Quell in two documents: the offline extractor gives her a description fragment from each. */
const DOCS = [
  ["mara.txt", "Mara Quell was born in 1978 in Port Ellery, a fishing harbour on the River Tarne."],
  ["lumora.txt", "Lumora Optics is a lens maker founded in 2009 by Mara Quell in Vessen."],
];

describe("descriptions as people read them (offline workspace, CLI)", () => {
  let root: string;
  let env: Record<string, string>;
  let stored: EntityRecord;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-readable-"));
    for (const [name, text] of DOCS) writeFileSync(join(root, name as string), text as string);
    env = { KGRAG_WORKSPACE: join(root, "ws") };
    expect((await runMain(["index", root, "--no-communities"], env)).code).toBe(0);
    const kgrag = await createKgrag({ env: {}, config: { workspace: join(root, "ws") } });
    try {
      // The store's record: kg.entities returns descriptions readable.
      [stored] = (await kgrag.services.store.getEntities([entityKey("Mara Quell")])) as [EntityRecord];
    } finally {
      await kgrag.close();
    }
    // Stored with the separator, as LightRAG keeps it.
    expect(stored.description).toContain(DESCRIPTION_SEPARATOR);
  }, 60_000);

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const readable = () => stored.fragments.map((f) => f.replace(/\s+/g, " ").trim()).join("\n");

  it("entities show prints one fragment a line, as text and as JSON", async () => {
    const shown = await runMain(["entities", "show", "Mara Quell"], env);
    expect(shown.stdout).not.toContain(DESCRIPTION_SEPARATOR);
    expect(shown.stdout).toContain(`\n${readable()}\n`);
    const json = JSON.parse((await runMain(["entities", "show", "Mara Quell", "--json"], env)).stdout);
    expect(json.entity.description).toBe(readable());
    expect(json.entity.fragments).toEqual(stored.fragments);
  });

  it("query --json gives the context's descriptions readable", async () => {
    const result = await runMain(["query", "Who is Mara Quell?", "-m", "local", "--json"], env);
    const parsed = JSON.parse(result.stdout) as QueryResult;
    expect(parsed.context.entities.find((e) => e.name === "Mara Quell")?.description).toBe(readable());
    expect(result.stdout).not.toContain(DESCRIPTION_SEPARATOR);
  });

  it("exports GraphML and JSON with readable descriptions", async () => {
    for (const file of ["graph.graphml", "graph.json"]) {
      expect((await runMain(["export", "--out", join(root, file)], env)).code).toBe(0);
      expect(readFileSync(join(root, file), "utf8")).not.toContain("SEP&gt;");
      expect(readFileSync(join(root, file), "utf8")).not.toContain(DESCRIPTION_SEPARATOR);
    }
  });

  it("entities merge prints the merged entity's description readable", async () => {
    const merged = await runMain(["entities", "merge", "Mara Quell", "Lumora Optics", "--by", "test"], env);
    expect(merged.code).toBe(0);
    expect(merged.stdout).not.toContain(DESCRIPTION_SEPARATOR);
    expect(merged.stdout.split("\n").length).toBeGreaterThan(3);
  });
});
