import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createKgrag, type Kgrag } from "../../src/kgrag.js";
import { OptionsError } from "../../src/options-error.js";
import { runMain } from "../support/cli-in-process.js";

/** Entities made by hand (kg.entities.create): indexed like extracted ones, kept by their rule. */
let dir: string;
let kg: Kgrag;

const DOCS = [
  {
    id: "porto",
    title: "Porto",
    text: "Ines Varga repairs clocks in Porto. Tomas Reis sells clocks in Porto.",
  },
  { id: "lisbon", title: "Lisbon", text: "Ines Varga visited Lisbon. Tomas Reis lives in Lisbon." },
];
const GUILD_DOC = {
  id: "guild",
  title: "Guild",
  text: "The Vessen Guild met in Porto. Ines Varga joined the Vessen Guild.",
};

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "kgrag-create-entity-"));
  kg = await createKgrag({ env: {}, config: { workspace: dir } });
  await kg.index(DOCS, { communities: false });
});

afterEach(async () => {
  await kg.close();
  rmSync(dir, { recursive: true, force: true });
});

const create = (name: string) =>
  kg.entities.create(
    { name, type: "Organization", description: "A guild of lens grinders." },
    { by: "alice" },
  );

describe("kg.entities.create", () => {
  it("stores an entity embedded and full-text searchable, with its history, and marks communities stale", async () => {
    await kg.rebuildCommunities();
    const before = (await kg.status()).counts.entities;
    const made = await create("Vessen Guild");
    expect(made).toMatchObject({
      key: "vessen guild",
      name: "Vessen Guild",
      type: "organization",
      description: "A guild of lens grinders.",
      sourceChunkIds: [],
      aliases: [],
    });
    const { store } = kg.services;
    expect((await kg.status()).counts.entities).toBe(before + 1);
    expect((await store.vectorHashes("entities")).has("vessen guild")).toBe(true);
    expect((await store.searchEntityText("lens grinders", 3)).map((h) => h.id)).toContain("vessen guild");
    expect((await kg.status()).communitiesStale).toBe(true);
    const out = join(dir, "graph.json");
    const exported = await runMain(["export", "--out", out, "--workspace", dir]);
    expect(exported.code, exported.stderr).toBe(0);
    const nodes = (JSON.parse(readFileSync(out, "utf8")) as { nodes: { id: string }[] }).nodes;
    expect(nodes.map((n) => n.id)).toContain("vessen guild");
    const history = await kg.entities.history("Vessen Guild");
    expect(history).toEqual([
      expect.objectContaining({ action: "create", cause: "create entity by alice", key: "vessen guild" }),
    ]);
    // It can be linked like any entity, and the link is found from either end.
    await kg.entities.addRelationship("Vessen Guild", "Ines Varga", { description: "She is a member." });
    expect((await store.relationshipsOf(["vessen guild"])).map((r) => r.key)).toEqual([
      "ines varga\u001fvessen guild",
    ]);
  });

  it("is kept through document deletes and re-indexing, and a later extraction of its name folds into it", async () => {
    await create("Vessen Guild");
    await kg.entities.addRelationship("Vessen Guild", "Tomas Reis", { description: "He supplies it." });
    await kg.deleteDocuments(["porto", "lisbon"]);
    expect((await kg.entities.list()).map((e) => e.name)).toEqual(["Vessen Guild"]);
    // Its hand-made link left with Tomas Reis, whose passages are gone.
    expect(await kg.services.store.listRelationships()).toEqual([]);

    await kg.index([...DOCS, GUILD_DOC], { communities: false });
    const guild = await kg.entities.get("Vessen Guild");
    const guildChunks = (await kg.services.store.listChunks("guild")).map((c) => c.id);
    expect(guild.name).toBe("Vessen Guild");
    expect(guild.type).toBe("organization");
    expect(guild.sourceChunkIds).toEqual(guildChunks);
    expect(guild.description).toContain("A guild of lens grinders.");
    expect(guild.description.split("\n").length).toBeGreaterThan(1);
    expect((await kg.entities.list("Vessen")).map((e) => e.key)).toEqual(["vessen guild"]);
    // The hand-made link is back with Tomas Reis.
    expect(await kg.services.store.getRelationships(["tomas reis\u001fvessen guild"])).toHaveLength(1);

    // The document that mentioned it goes; the entity stays, with its own description only.
    await kg.deleteDocuments(["guild"]);
    const kept = await kg.entities.get("Vessen Guild");
    expect(kept).toMatchObject({ sourceChunkIds: [], description: "A guild of lens grinders." });
  });

  it("is removed by a delete by hand, and can be made again", async () => {
    await create("Vessen Guild");
    await kg.entities.deleteEntity("Vessen Guild");
    await expect(kg.entities.get("Vessen Guild")).rejects.toThrow(/No entity named "Vessen Guild"/);
    await kg.index([GUILD_DOC], { communities: false });
    expect((await kg.entities.list("Vessen")).map((e) => e.name)).toEqual([]);
    // Made again, it is the hand-made entity only: the deleted extraction stays deleted.
    const again = await create("Vessen Guild");
    expect(again).toMatchObject({ sourceChunkIds: [], description: "A guild of lens grinders." });
  });

  it("an unknown name is refused with the name it most likely meant, when one is a slip away", async () => {
    await expect(kg.entities.get("Ines Vraga")).rejects.toThrow(
      'No entity named "Ines Vraga" in this workspace. Did you mean "Ines Varga"?',
    );
    await expect(kg.entities.get("Nobody At All")).rejects.toThrow(
      /^No entity named "Nobody At All" in this workspace\.$/,
    );
  });

  it("made, deleted and made again, has only the later description", async () => {
    await kg.entities.create({ name: "Vessen Guild", description: "First words." });
    await kg.entities.deleteEntity("Vessen Guild");
    await kg.entities.create({ name: "Vessen Guild", description: "Second words." });
    expect((await kg.entities.get("Vessen Guild")).description).toBe("Second words.");
  });

  it("made by hand under the name of a deleted extracted entity, brings back none of its extractions", async () => {
    await kg.entities.deleteEntity("Tomas Reis");
    expect(await kg.services.store.relationshipsOf(["tomas reis"])).toEqual([]);
    const made = await kg.entities.create({ name: "Tomas Reis", description: "A clock seller." });
    expect(made).toMatchObject({ sourceChunkIds: [], description: "A clock seller." });
    expect(await kg.services.store.relationshipsOf(["tomas reis"])).toEqual([]);
  });

  it("made twice at once under one name, makes one entity and refuses the other call", async () => {
    const calls = await Promise.allSettled([
      kg.entities.create({ name: "Vessen Guild", description: "First words." }),
      kg.entities.create({ name: "Vessen Guild", description: "Second words." }),
    ]);
    expect(calls.map((call) => call.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = calls.find((call) => call.status === "rejected");
    expect(String(refused?.reason)).toMatch(/"Vessen Guild" already names another entity/);
    expect((await kg.entities.rules()).filter((rule) => rule.kind === "add-entity")).toHaveLength(1);
    expect((await kg.entities.get("Vessen Guild")).description).toBe("First words.");
  });

  it("refuses bad input with a clear error and changes nothing", async () => {
    await kg.entities.merge(["Ines Varga", "Tomas Reis"], { into: "Ines Varga" });
    const rules = await kg.entities.rules();
    const entities = await kg.services.store.listEntities();
    const refusals: [unknown, RegExp][] = [
      [{ name: "  ", description: "x" }, /name: must not be empty/],
      [{ name: "Vessen Guild", description: "" }, /description: must not be empty/],
      [{ name: "Vessen Guild" }, /description/],
      [{ name: "Vessen Guild", description: "x", kind: "org" }, /kind/],
      [{ name: "\u201c \u201d", description: "x" }, /has no letters to name an entity by/],
      [{ name: "INES VARGA", description: "x" }, /"INES VARGA" already names another entity \("Ines Varga"/],
      [{ name: "Tomas Reis", description: "x" }, /"Tomas Reis" already names another entity \("Ines Varga"/],
    ];
    for (const [input, message] of refusals) {
      const refused = kg.entities.create(input as Parameters<Kgrag["entities"]["create"]>[0]);
      await expect(refused).rejects.toThrow(message);
      // The caller's mistake: the CLI exits 2 and the server answers 400 (409 for a name taken).
      await expect(refused).rejects.toBeInstanceOf(OptionsError);
    }
    expect(await kg.entities.rules()).toEqual(rules);
    expect(await kg.services.store.listEntities()).toEqual(entities);
  });
});
