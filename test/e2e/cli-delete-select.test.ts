import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMain } from "../support/cli-in-process.js";

/** `kgrag delete` by the path a document was read from and by its metadata, not only by id. */
let root: string;
let ws: string;
let corpus: string;

const notes = [
  {
    id: "note-a",
    title: "Note A",
    text: "Ines Varga repairs clocks in Porto.",
    metadata: { team: "clocks" },
  },
  { id: "note-b", title: "Note B", text: "Tomas Reis sells maps in Lisbon.", metadata: { team: "maps" } },
  { id: "note-c", title: "Note C", text: "Ines Varga sells clocks in Faro.", metadata: { team: "clocks" } },
];

async function documents(): Promise<{ id: string; path: string | null }[]> {
  const status = await runMain(["status", "--workspace", ws, "--json"]);
  return (JSON.parse(status.stdout) as { documents: { id: string; path: string | null }[] }).documents;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "kgrag-delete-select-"));
  ws = join(root, "ws");
  corpus = join(root, "corpus");
  mkdirSync(join(corpus, "sub"), { recursive: true });
  writeFileSync(join(corpus, "porto.md"), "# Porto\n\nInes Varga repairs clocks in Porto.\n");
  writeFileSync(join(corpus, "sub", "lisbon.md"), "# Lisbon\n\nTomas Reis lives in Lisbon.\n");
  writeFileSync(join(corpus, "sub", "faro.txt"), "Faro\n\nTomas Reis sailed to Faro.\n");
  writeFileSync(join(corpus, "notes.jsonl"), `${notes.map((n) => JSON.stringify(n)).join("\n")}\n`);
  const indexed = await runMain(["index", corpus, "--workspace", ws, "--no-communities"]);
  expect(indexed.code).toBe(0);
  expect(await documents()).toHaveLength(6);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("kgrag delete --path / --filter", () => {
  it("refuses a path or filter no document has, and a call with no selector, deleting nothing", async () => {
    const nowhere = await runMain(["delete", "--path", join(corpus, "nope"), "--workspace", ws]);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toMatch(/No document in this workspace was read from .*nope; nothing was deleted/);
    const value = await runMain(["delete", "--filter", "team=boats", "--workspace", ws]);
    expect(value.code).toBe(2);
    expect(value.stderr).toMatch(
      /No document has team=boats\. Values of "team" that exist: "clocks", "maps"/,
    );
    const none = await runMain(["delete", "--workspace", ws]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/needs document ids, --path or --filter/);
    expect(await documents()).toHaveLength(6);
  });

  it("--dry-run lists what a folder path selects and deletes nothing", async () => {
    const dry = await runMain([
      "delete",
      "--path",
      join(corpus, "sub"),
      "--dry-run",
      "--json",
      "--workspace",
      ws,
    ]);
    expect(dry.code).toBe(0);
    const listed = (JSON.parse(dry.stdout) as { wouldDelete: { path: string }[] }).wouldDelete;
    expect(listed.map((d) => d.path).sort()).toEqual([
      join(corpus, "sub", "faro.txt"),
      join(corpus, "sub", "lisbon.md"),
    ]);
    expect(await documents()).toHaveLength(6);
  });

  it("deletes a folder's documents by path, and a .jsonl file's lines narrowed by --filter", async () => {
    const byFolder = await runMain(["delete", "--path", join(corpus, "sub"), "--json", "--workspace", ws]);
    expect(byFolder.code).toBe(0);
    expect((JSON.parse(byFolder.stdout) as { deleted: string[] }).deleted).toHaveLength(2);
    // The files are still there: the next index of the folder would bring them back, and it says so.
    expect(byFolder.stderr).toMatch(/still exist; the next `kgrag index` of its folder indexes it again/);
    expect((await documents()).map((d) => d.path)).not.toContain(join(corpus, "sub", "faro.txt"));

    const clocks = await runMain([
      "delete",
      "--path",
      join(corpus, "notes.jsonl"),
      "--filter",
      "team=clocks",
      "--json",
      "--workspace",
      ws,
    ]);
    expect(clocks.code).toBe(0);
    expect((JSON.parse(clocks.stdout) as { deleted: string[] }).deleted.sort()).toEqual(["note-a", "note-c"]);
    expect((await documents()).map((d) => d.id)).toContain("note-b");
    expect(await documents()).toHaveLength(2);
  });
});
