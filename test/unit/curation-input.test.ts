import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createKgrag, type Kgrag } from "../../src/kgrag.js";
import { DESCRIPTION_SEPARATOR } from "../../src/merge/keys.js";
import { OptionsError } from "../../src/options-error.js";
import { CurationInputError, UnknownEntityError } from "../../src/resolve/curation.js";
import { runMain } from "../support/cli-in-process.js";

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

/** Two distinct entities of the offline graph, by name. */
async function twoEntities(): Promise<[string, string]> {
  const names = (await kg.entities.list()).map((e) => e.name);
  const wanted = ["Ines Varga", "Tomas Reis"].filter((n) => names.includes(n));
  expect(wanted).toHaveLength(2);
  return wanted as [string, string];
}

/** The rules as stored, read raw (what the next load will read). */
async function storedRules(): Promise<unknown[]> {
  return JSON.parse((await kg.services.store.getMeta("entity-rules")) ?? "[]") as unknown[];
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "kgrag-curation-input-"));
  kg = await createKgrag({ env: {}, config: { workspace: dir } });
  await kg.index(DOCS, { communities: false });
});

afterEach(async () => {
  await kg.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("curation input is checked before anything is saved", () => {
  it("an empty `by`, description, type or name is an OptionsError naming the field; no rule is stored", async () => {
    const [a, b] = await twoEntities();
    const refusals: [Promise<unknown>, RegExp][] = [
      [kg.entities.edit(a, { type: "city" }, { by: "" }), /\bby: must not be empty/],
      [kg.entities.edit(a, { type: "city" }, { by: "   " }), /\bby: /],
      [kg.entities.edit(a, { type: "city" }, { by: "eve\nalice" }), /\bby: must not hold control characters/],
      [kg.entities.rename(a, "Ines", { by: "\u001b[2Jeve" }), /\bby: must not hold control characters/],
      [kg.entities.edit(a, { description: "" }), /\bdescription: must not be empty/],
      [kg.entities.edit(a, { type: " " }), /\btype: /],
      [kg.entities.rename(a, "Ines", { by: "" }), /\bby: /],
      [kg.entities.merge([a, b], { by: "" }), /\bby: /],
      [kg.entities.merge([a, b], { into: "" }), /\binto: /],
      [kg.entities.deleteEntity(a, { by: "" }), /\bby: /],
      [kg.entities.addRelationship(a, b, { description: " " }), /\bdescription: /],
      [kg.entities.addRelationship(a, b, { description: "x", strength: 0 }), /\bstrength: /],
      [kg.entities.addRelationship(a, b, { description: "x" }, { by: "" }), /\bby: /],
    ];
    for (const [call, message] of refusals) {
      await expect(call).rejects.toBeInstanceOf(OptionsError);
      await expect(call).rejects.toThrow(message);
    }
    expect(await storedRules()).toEqual([]);
    // The workspace stays writable.
    await kg.index([{ id: "faro", title: "Faro", text: "Ines Varga sailed to Faro." }], {
      communities: false,
    });
    await kg.entities.addRelationship(a, b, { description: "They trade clocks." });
    expect(await storedRules()).toHaveLength(1);
  });

  it("the CLI exits 2 on an empty --by, and index and delete still work afterwards", async () => {
    const [a] = await twoEntities();
    await kg.close();
    const env = { KGRAG_WORKSPACE: dir };
    const edit = await runMain(["entities", "edit", a, "--type", "city", "--by", ""], env);
    expect(edit.code).toBe(2);
    expect(edit.stderr).toMatch(/\bby: must not be empty/);
    const docs = mkdtempSync(join(tmpdir(), "kgrag-curation-docs-"));
    try {
      writeFileSync(join(docs, "faro.txt"), "Ines Varga sailed to Faro.");
      expect((await runMain(["index", docs, "--no-communities"], env)).code).toBe(0);
      expect((await runMain(["delete", "porto"], env)).code).toBe(0);
    } finally {
      rmSync(docs, { recursive: true, force: true });
    }
    kg = await createKgrag({ env: {}, config: { workspace: dir } });
    expect(await storedRules()).toEqual([]);
  });
});

describe("a stored rule that cannot be read (an older kgrag let it through)", () => {
  it("is skipped with a warning naming it, the workspace stays writable, and the next write drops it", async () => {
    const [a, b] = await twoEntities();
    const bad = { kind: "edit", key: a.toLowerCase(), type: "city", by: "", at: "2026-01-01T00:00:00Z" };
    const good = {
      kind: "edit",
      key: b.toLowerCase(),
      type: "merchant",
      by: "bob",
      at: "2026-01-01T00:00:00Z",
    };
    await kg.services.store.setMeta("entity-rules", JSON.stringify([bad, good]));
    const warnings: Error[] = [];
    const listen = (warning: Error) => warnings.push(warning);
    process.on("warning", listen);
    try {
      expect((await kg.entities.rules()).map((r) => r.by)).toEqual(["bob"]);
      await kg.index([{ id: "faro", title: "Faro", text: "Ines Varga sailed to Faro." }], {
        communities: false,
      });
      await kg.deleteDocuments(["faro"]);
      await kg.entities.addRelationship(a, b, { description: "They trade clocks." });
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", listen);
    }
    const messages = warnings.map((w) => w.message);
    expect(messages).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^Entity rule 1 of 2 \\(edit of ${a.toLowerCase()}\\) cannot be read and is ignored \\(by: must not be empty\\)`,
        ),
      ),
    );
    expect(messages.filter((m) => m.startsWith("Entity rule 1 of 2"))).toHaveLength(1);
    expect(await storedRules()).toEqual([good, expect.objectContaining({ kind: "add-relationship" })]);
    expect((await kg.entities.get(b)).type).toBe("merchant");
  });
});

describe("curation refusals have the right class and message", () => {
  it("bad requests are CurationInputErrors (OptionsErrors); unknown names stay UnknownEntityErrors", async () => {
    const [a, b] = await twoEntities();
    const bad: [Promise<unknown>, RegExp][] = [
      [kg.entities.merge([a]), /Merging needs at least two entities/],
      [kg.entities.merge([a, a.toLowerCase()]), /all name one entity[\s\S]*nothing to merge/],
      [kg.entities.addRelationship(a, a.toUpperCase(), { description: "x" }), /two different entities/],
      [kg.entities.edit(a, {}), /An edit needs a type or a description/],
      [kg.entities.split(a, b), /is not an alias of/],
    ];
    for (const [call, message] of bad) {
      await expect(call).rejects.toBeInstanceOf(CurationInputError);
      await expect(call).rejects.toBeInstanceOf(OptionsError);
      await expect(call).rejects.toThrow(message);
      await expect(call).rejects.not.toBeInstanceOf(UnknownEntityError);
    }
    const taken = kg.entities.rename(a, b);
    await expect(taken).rejects.toBeInstanceOf(CurationInputError);
    await expect(taken).rejects.toMatchObject({ reason: "conflict" });
    await expect(kg.entities.get("Zebulon Quarrington")).rejects.toBeInstanceOf(UnknownEntityError);
    expect(await storedRules()).toEqual([]);
  });

  it("merge refuses an `into` that is not among the merged entities, changing nothing", async () => {
    const [a, b] = await twoEntities();
    const porto = (await kg.entities.list()).find((e) => e.name === "Porto");
    expect(porto).toBeDefined();
    const merging = kg.entities.merge([a, b], { into: "Porto" });
    await expect(merging).rejects.toBeInstanceOf(CurationInputError);
    await expect(merging).rejects.toThrow(/into: "Porto" is not among the entities merged/);
    expect(await storedRules()).toEqual([]);
    expect((await kg.entities.get("Porto")).aliases).toEqual([]);
    const merged = await kg.entities.merge([a, b], { into: b });
    expect(merged.name).toBe(b);
  });

  it("keeps the better-connected entity when a merge names no `into`, whichever is given first", async () => {
    const [a, b] = await twoEntities();
    const keyOf = async (name: string) => (await kg.entities.get(name)).key;
    const degreeOf = async (name: string) =>
      (await kg.services.store.degrees([await keyOf(name)])).get(await keyOf(name)) ?? 0;
    // Both are linked to Porto by the text; taking a's link away leaves b the better-connected.
    await kg.entities.deleteRelationship(a, "Porto");
    expect(await degreeOf(b)).toBeGreaterThan(await degreeOf(a));
    const merged = await kg.entities.merge([a, b]);
    expect(merged.name).toBe(b);
    expect(merged.aliases).toEqual([a]);
  });

  it("returns descriptions readable (no stored separator) and aliases as a list", async () => {
    const [a, b] = await twoEntities();
    const merged = await kg.entities.merge([a, b]);
    expect(merged.aliases).toEqual([b]);
    expect(merged.description).not.toContain(DESCRIPTION_SEPARATOR);
    expect(merged.description.split("\n").length).toBeGreaterThan(1);
    const split = await kg.entities.split(a, b);
    expect(split.aliases).toEqual([]);
    const linked = await kg.entities.addRelationship(a, "Porto", {
      description: "She repairs clocks there.",
    });
    expect(linked.description).not.toContain(DESCRIPTION_SEPARATOR);
    expect(linked.description).toContain("She repairs clocks there.");
    expect(linked.description.split("\n").length).toBeGreaterThan(1);
  });

  it("an edited description comes back as it was written: one fragment a line", async () => {
    const [a] = await twoEntities();
    const shown = (await kg.entities.get(a))?.description ?? "";
    expect(shown.split("\n").length).toBeGreaterThan(1);
    // A client sends back the description as the API showed it, with a line added.
    const written = `${shown}\nShe also mends watches.`;
    const edited = await kg.entities.edit(a, { description: written });
    expect(edited.description).toBe(written);
    expect((await kg.entities.get(a))?.description).toBe(written);
    const [stored] = await kg.services.store.getEntities([edited.key]);
    expect(stored?.description.split(DESCRIPTION_SEPARATOR)).toEqual(written.split("\n"));
  });
});
