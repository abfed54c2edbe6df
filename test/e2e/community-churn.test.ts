import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { seededRandom } from "../../src/community/seeded-random.js";
import { createKgrag } from "../../src/kgrag.js";
import { clusterView } from "../../src/pipeline/create-communities.js";
import { loadGraphView } from "../../src/pipeline/graph-view.js";
import { runMain } from "../support/cli-in-process.js";

const FIRST_NAMES = ["Maria", "John", "Peter", "Anna", "Lucas", "Sofia", "David", "Elena"];
const SYLLABLES = ["ko", "va", "ren", "tal", "mir", "sen", "dor", "lin", "bar", "qua", "zel", "tor"];

/** Eight people per family, their surnames made up so that no two families share one. */
function family(t: number): string[] {
  const stem = (SYLLABLES[t % SYLLABLES.length] as string).replace(/^./, (c) => c.toUpperCase());
  return FIRST_NAMES.map(
    (first, i) =>
      `${first} ${stem}${SYLLABLES[(t * 5 + i) % SYLLABLES.length]}${SYLLABLES[(t + i * 7) % SYLLABLES.length]}`,
  );
}

/**
 * One-passage documents in which people of a family meet and write to each other, now and then
 * someone of another family: a graph of many communities, most of them joined into one component.
 */
function writeFamilies(folder: string, families: number, perFamily: number): string[] {
  mkdirSync(folder, { recursive: true });
  const random = seededRandom(3);
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)] as T;
  const people = Array.from({ length: families }, (_, t) => family(t));
  const paths: string[] = [];
  for (let t = 0; t < families; t++) {
    const own = people[t] as string[];
    for (let d = 0; d < perFamily; d++) {
      const [a, b, c] = [pick(own), pick(random() < 0.85 ? own : pick(people)), pick(own)];
      const path = join(folder, `doc-${String(paths.length).padStart(4, "0")}.txt`);
      writeFileSync(path, `${a} met ${b} in the spring. ${b} later wrote to ${c} about the harvest.\n`);
      paths.push(path);
    }
  }
  return paths;
}

describe("re-indexing one document (offline)", () => {
  let root: string;
  let paths: string[];

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "kgrag-churn-"));
    paths = writeFamilies(join(root, "corpus"), 12, 10);
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("re-writes only the reports of communities holding the document's entities", async () => {
    const kgrag = await createKgrag({
      env: {},
      config: { workspace: join(root, "ws"), community: { maxClusterSize: 5 } },
    });
    const reportWriter = vi.spyOn(kgrag.components.reportWriter, "write");
    try {
      await kgrag.index([join(root, "corpus")]);
      const { store } = kgrag.services;
      const before = await store.listCommunities();
      expect(before.length).toBeGreaterThan(30);
      const edited = paths[7] as string;
      writeFileSync(edited, readFileSync(edited, "utf8").replace("harvest.", "harvest and the mill."));
      reportWriter.mockClear();

      const run = await kgrag.index([join(root, "corpus")]);
      expect(run.updated).toHaveLength(1);
      const [docId] = run.updated;
      const chunkIds = (await store.listChunks(docId as string)).map((c) => c.id);
      const mentioned = new Set((await store.getChunkMentions(chunkIds)).entities.map((m) => m.entityKey));
      const after = await store.listCommunities();
      const known = new Set(before.map((c) => `${c.id} ${c.contentHash}`));
      const rewritten = after.filter((c) => !known.has(`${c.id} ${c.contentHash}`));
      expect(reportWriter).toHaveBeenCalledTimes(rewritten.length);
      expect(rewritten.length).toBeGreaterThan(0);
      // Clustered from scratch, this edit re-wrote half the reports (22 of 43).
      expect(rewritten.length).toBeLessThan(after.length / 4);
      for (const community of rewritten) {
        expect(community.entityKeys.some((key) => mentioned.has(key))).toBe(true);
      }
    } finally {
      await kgrag.close();
    }
  });

  it("`kgrag communities --rebuild --fresh` clusters from scratch; --fresh alone is refused", async () => {
    const ws = join(root, "ws");
    const kgrag = await createKgrag({ env: {}, config: { workspace: ws } });
    await kgrag.index([join(root, "corpus")]);
    const edited = paths[7] as string;
    writeFileSync(edited, readFileSync(edited, "utf8").replace("harvest.", "harvest and the mill."));
    await kgrag.index([join(root, "corpus")]);
    const { config, store } = kgrag.services;
    const scratch = clusterView(config, await loadGraphView(store)).nodes;
    const warm = await store.listCommunities();
    await kgrag.close();
    const members = (communities: { level: number; entityKeys: string[] }[]) =>
      communities.map((c) => `${c.level}:${c.entityKeys.join(",")}`).sort();
    expect(members(warm)).not.toEqual(members(scratch));

    const alone = await runMain(["communities", "--fresh", "--workspace", ws]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/--fresh goes with --rebuild/);

    const rebuilt = await runMain(["communities", "--rebuild", "--fresh", "--workspace", ws, "--json"]);
    expect(rebuilt.code).toBe(0);
    const reopened = await createKgrag({ env: {}, config: { workspace: ws } });
    try {
      expect(members(await reopened.services.store.listCommunities())).toEqual(members(scratch));
    } finally {
      await reopened.close();
    }
  });
});
