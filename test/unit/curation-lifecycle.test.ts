import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createKgrag, type Kgrag } from "../../src/kgrag.js";
import { STALE_COMMUNITY_REPORTS } from "../../src/query/query-engine.js";
import { runMain } from "../support/cli-in-process.js";

/**
 * Hand curation meeting the document lifecycle: documents deleted and indexed after the edit.
 * Every relationship must keep both its entities, and an edit must hold for what comes later.
 */
let dir: string;
let kg: Kgrag;

const DOCS = [
  {
    id: "porto",
    title: "Porto",
    text: "Ines Varga repairs clocks in Porto. Tomas Reis sells clocks in Porto.",
  },
  { id: "lisbon", title: "Lisbon", text: "Ines Varga visited Lisbon. Tomas Reis lives in Lisbon." },
  { id: "halcyon", title: "Halcyon", text: "The Halcyon Lens is ground in Vessen." },
];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "kgrag-curation-lifecycle-"));
  kg = await createKgrag({ env: {}, config: { workspace: dir } });
  await kg.index(DOCS, { communities: false });
});

afterEach(async () => {
  await kg.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Relationships whose source or target is no entity of the graph. */
async function danglingRelationships(): Promise<string[]> {
  const { store } = kg.services;
  const entities = new Set((await store.listEntities()).map((e) => e.key));
  return (await store.listRelationships())
    .filter((r) => !entities.has(r.sourceKey) || !entities.has(r.targetKey))
    .map((r) => r.key);
}

describe("hand curation through deletes and later documents", () => {
  it("a relationship added by hand leaves with an entity whose last document is deleted, and comes back with it", async () => {
    const lens = await kg.entities.get("Halcyon Lens");
    await kg.entities.addRelationship("Halcyon Lens", "Ines Varga", {
      description: "She repairs its clocks.",
    });
    const linked = `${lens.key}\u001fines varga`;
    expect((await kg.services.store.getRelationships([linked])).map((r) => r.key)).toEqual([linked]);

    await kg.deleteDocuments(["halcyon"]);
    expect((await kg.entities.list("Halcyon Lens")).map((e) => e.name)).toEqual([]);
    expect(await danglingRelationships()).toEqual([]);
    expect(await kg.services.store.getRelationships([linked])).toEqual([]);
    // Gone, its history is still found by its name: what removed it, and why.
    const gone = await kg.entities.history("Halcyon Lens");
    expect(gone.at(-1)).toMatchObject({ key: lens.key, action: "delete", cause: "delete document halcyon" });
    await expect(kg.entities.history("Nobody At All")).rejects.toThrow(/No entity named "Nobody At All"/);

    // The rule is kept: the document indexed again brings the entity and the hand-made link back.
    await kg.index([DOCS[2]!], { communities: false });
    const [back] = await kg.services.store.getRelationships([linked]);
    expect(back?.description).toBe("She repairs its clocks.");
    expect(await danglingRelationships()).toEqual([]);
  });

  it("an entity renamed takes the later mentions of its new name, rather than a second entity so named", async () => {
    const renamed = await kg.entities.rename("Ines Varga", "Ines Varga-Reis");
    await kg.index([{ id: "faro", title: "Faro", text: "Ines Varga-Reis opened a clock shop in Faro." }], {
      communities: false,
    });
    const named = (await kg.entities.list("Varga")).filter((e) => e.name === "Ines Varga-Reis");
    expect(named.map((e) => e.key)).toEqual([renamed.key]);
    const faroChunks = (await kg.services.store.listChunks("faro")).map((c) => c.id);
    expect(named[0]?.sourceChunkIds).toEqual(expect.arrayContaining(faroChunks));
    // Looked up by the new name, the entity is the renamed one.
    expect((await kg.entities.get("Ines Varga-Reis")).key).toBe(renamed.key);
    // The old name, now listed as an alias, is the entity's own key: refused with why, not "no alias".
    expect(renamed.aliases).toContain("Ines Varga");
    await expect(kg.entities.split("Ines Varga-Reis", "Ines Varga")).rejects.toThrow(
      /"Ines Varga" is the name "Ines Varga-Reis" \(ines varga\) was extracted under, not an alias merged into it/,
    );
    // `entities show` prints the history its help promises, the rename among it.
    await kg.close();
    const shown = await runMain(["entities", "show", "Ines Varga-Reis", "--workspace", dir]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/\nhistory:\n.*\n.*rename by /s);
    kg = await createKgrag({ env: {}, config: { workspace: dir } });
  });
});

describe("communities after a curation edit", () => {
  it("are reported stale by status and by the queries that use their reports, until rebuilt", async () => {
    await kg.rebuildCommunities();
    expect((await kg.status()).communitiesStale).toBe(false);
    const global = () => kg.query("What are the main themes?", { mode: "global" });
    const before = await global();
    expect(before.context.communities.length).toBeGreaterThan(0);
    expect(before.warnings ?? []).not.toContain(STALE_COMMUNITY_REPORTS);

    await kg.entities.deleteEntity("Tomas Reis");
    expect((await kg.status()).communitiesStale).toBe(true);
    expect((await global()).warnings).toContain(STALE_COMMUNITY_REPORTS);
    await kg.close();
    const status = await runMain(["status", "--workspace", dir, "--json"], {});
    expect(JSON.parse(status.stdout).communitiesStale).toBe(true);
    const human = await runMain(["status", "--workspace", dir], {});
    expect(human.stdout).toContain("`kgrag communities --rebuild`");

    kg = await createKgrag({ env: {}, config: { workspace: dir } });
    await kg.rebuildCommunities();
    expect((await kg.status()).communitiesStale).toBe(false);
    expect((await global()).warnings ?? []).not.toContain(STALE_COMMUNITY_REPORTS);
  });
});
