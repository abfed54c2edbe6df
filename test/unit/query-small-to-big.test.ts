import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { runQuery } from "../../src/query/query-engine.js";
import { chunkUnits } from "../../src/storage/chunk-units.js";
import { SCHEMA_VERSION_KEY } from "../../src/storage/sqlite/schema.js";
import { openSqliteStore, type SqliteGraphStore, sqliteFile } from "../../src/storage/sqlite/sqlite-store.js";
import { seedDocument } from "../support/storage-fixtures.js";
import { buildFixture, type Fixture } from "./query-fixture.js";

const QUESTION = "Which river flows through Vilnius city?";
/** One sentence answers the question; the other nineteen are about something else. */
const LONG = [
  ...Array.from({ length: 10 }, (_, i) => `The old market hall number ${i} sold bread, cheese and honey.`),
  "The Neris river flows through Vilnius city.",
  ...Array.from({ length: 9 }, (_, i) => `Merchants from district ${i} brought wool and salt on carts.`),
].join(" ");
/** Short, and holds every word of the question, but never in one sentence. */
const SCATTERED = "A river is wide. Water flows. Vilnius has a bus. The road goes through hills. A city.";

let dir: string | undefined;
let store: SqliteGraphStore | undefined;
let fixture: Fixture | undefined;
afterEach(async () => {
  await store?.close();
  await fixture?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  store = undefined;
  fixture = undefined;
  dir = undefined;
});

async function openWith(docs: Record<string, string>): Promise<Map<string, string>> {
  dir = await mkdtemp(join(tmpdir(), "kgrag-small-to-big-"));
  store = await openSqliteStore(dir);
  const chunkOfDoc = new Map<string, string>();
  for (const [doc, text] of Object.entries(docs)) {
    const [chunk] = await seedDocument(store, doc, [text]);
    if (chunk) chunkOfDoc.set(chunk.id, doc);
  }
  return chunkOfDoc;
}

describe("Small-to-Big sentence units", () => {
  it("are a chunk's sentences, the tail joined into the last one past the cap", () => {
    expect(chunkUnits("One. Two. Three.", 10)).toEqual(["One.", "Two.", "Three."]);
    expect(chunkUnits("One. Two. Three.", 2)).toEqual(["One.", "Two. Three."]);
  });

  it("rank the long passage whose one sentence matches the question above a short one that only scatters its words", async () => {
    const docOf = await openWith({ long: LONG, scattered: SCATTERED });
    const byPassage = await store!.searchChunkText(QUESTION, 5);
    const bySentence = await store!.searchChunkUnits(QUESTION, 5);
    // Passage-level BM25 favours the short passage (length normalisation) ...
    expect(byPassage.map((h) => docOf.get(h.id))).toEqual(["scattered", "long"]);
    // ... the sentence level finds the one sentence that says it all, and returns its parent once.
    expect(bySentence.map((h) => docOf.get(h.id))).toEqual(["long", "scattered"]);
  });

  it("honour the allowed chunks and forget a deleted document's sentences", async () => {
    const docOf = await openWith({ long: LONG, scattered: SCATTERED });
    const scattered = [...docOf].find(([, doc]) => doc === "scattered")?.[0] ?? "";
    const allowed = await store!.searchChunkUnits(QUESTION, 5, new Set([scattered]));
    expect(allowed.map((h) => h.id)).toEqual([scattered]);
    await store!.deleteDocuments(["long"]);
    const left = await store!.searchChunkUnits(QUESTION, 5);
    expect(left.map((h) => docOf.get(h.id))).toEqual(["scattered"]);
  });

  it("replace a re-indexed chunk's sentences instead of adding a second copy", async () => {
    await openWith({ long: LONG, scattered: SCATTERED });
    const before = await store!.searchChunkUnits(QUESTION, 5);
    await store!.close();
    const db = new Database(sqliteFile(dir!));
    const units = () => db.prepare("SELECT count(*) FROM chunk_units_fts_docsize").pluck().get();
    const indexed = units();
    // Queue every chunk again, as a migration does, with its sentences still indexed.
    db.exec("INSERT OR IGNORE INTO fts_pending (kind, seq) SELECT 'chunk', seq FROM chunks");
    db.close();
    store = await openSqliteStore(dir!);
    await store.refreshIndexes();
    // Ids only: FTS5 keeps a contentless table's deleted rows in its term statistics until a merge.
    const after = await store.searchChunkUnits(QUESTION, 5);
    expect(after.map((hit) => hit.id)).toEqual(before.map((hit) => hit.id));
    await store.close();
    store = undefined;
    const reopened = new Database(sqliteFile(dir!));
    expect(reopened.prepare("SELECT count(*) FROM chunk_units_fts_docsize").pluck().get()).toBe(indexed);
    reopened.close();
  });
});

describe("Small-to-Big in naive retrieval", () => {
  const specs = [
    { doc: "long", text: LONG, entities: [] },
    { doc: "scattered", text: SCATTERED, entities: [] },
  ];
  const firstDoc = async (smallToBig: { enabled: boolean; weight: number }) => {
    fixture = await buildFixture(specs, { config: { query: { smallToBig } } });
    const result = await runQuery(fixture.services, QUESTION, { mode: "naive", contextOnly: true });
    const first = result.context.chunks[0]?.docId;
    await fixture.close();
    fixture = undefined;
    return first;
  };

  it("ranks the passage with the matching sentence first when on, the passage-level order when off", async () => {
    expect(await firstDoc({ enabled: true, weight: 1.5 })).toBe("long");
    expect(await firstDoc({ enabled: false, weight: 1.5 })).toBe("scattered");
  });
});

describe("Small-to-Big on a workspace written before sentence units", () => {
  it("indexes every chunk's sentences when the store is opened", async () => {
    await openWith({ long: LONG });
    await store!.close();
    store = undefined;
    const db = new Database(sqliteFile(dir!));
    db.exec("INSERT INTO chunk_units_fts (chunk_units_fts) VALUES ('delete-all')");
    db.prepare("UPDATE meta SET value = '4' WHERE key = ?").run(SCHEMA_VERSION_KEY);
    db.close();
    store = await openSqliteStore(dir!);
    expect(await store.searchChunkUnits(QUESTION, 5)).toHaveLength(1);
  });
});
