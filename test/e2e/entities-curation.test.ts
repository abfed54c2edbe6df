import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKgrag } from "../../src/kgrag.js";
import type { EntityRecord } from "../../src/types.js";
import { CAROL_PASSAGES, carolExtraction, scoreCarolAliases } from "../fixtures/christmas-carol.js";
import { runMain } from "../support/cli-in-process.js";
import {
  lastUserMessage,
  type ScriptedServer,
  startScriptedOpenAI,
} from "../support/scripted-openai-server.js";

const EMPTY = JSON.stringify({ entities: [], relationships: [] });

describe("entity resolution and curation (SQLite, scripted LLM extraction of A Christmas Carol)", () => {
  let root: string;
  let server: ScriptedServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-entities-"));
    for (const p of CAROL_PASSAGES) writeFileSync(join(root, `${p.marker}.txt`), p.text);
    server = await startScriptedOpenAI({
      chat: (call) => {
        if (call.stage === "extract") return { content: carolExtraction(lastUserMessage(call)) };
        if (call.stage === "resolve") return { content: JSON.stringify({ same: false, reason: "not sure" }) };
        if (call.stage === "summarize") return { content: "A summary." };
        return { content: EMPTY };
      },
    });
    env = {
      KGRAG_LLM_BASE_URL: server.baseURL,
      KGRAG_LLM_API_KEY: "k",
      KGRAG_LLM_MODEL: "scripted",
      KGRAG_WORKSPACE: join(root, "ws"),
      KGRAG_USER: "alice",
    };
  });

  afterAll(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  const kg =
    (json = true) =>
    async (...args: string[]) => {
      const result = await runMain(["entities", ...args, ...(json ? ["--json"] : [])], env);
      return result;
    };
  const entities = kg();
  const listed = async (): Promise<EntityRecord[]> =>
    (JSON.parse((await entities("list")).stdout) as { entities: EntityRecord[] }).entities;
  const named = (all: EntityRecord[], name: string) =>
    all.find((e) => e.name === name || (e.aliases ?? []).includes(name));

  it("merges aliases at index time with no wrong merge, keeping every name searchable", async () => {
    const indexed = await runMain(["index", root, "--json", "--no-communities"], env);
    expect(indexed.code).toBe(0);
    const all = await listed();
    const score = scoreCarolAliases(all);
    expect(score.wrong).toEqual([]);
    expect(score.truePairs).toBeGreaterThanOrEqual(5);
    const scrooge = named(all, "SCROOGE")!;
    expect(new Set([scrooge.name, ...(scrooge.aliases ?? [])])).toEqual(
      new Set(["EBENEZER SCROOGE", "SCROOGE", "MR. SCROOGE"]),
    );
    expect(named(all, "MR. FEZZIWIG")!.key).not.toBe(named(all, "MRS. FEZZIWIG")!.key);
    expect(named(all, "JOE")!.key).not.toBe(named(all, "JOE MILLER")!.key);
    expect(named(all, "SCROOGE'S NEPHEW")!.key).not.toBe(scrooge.key);
    // The resolve stage was asked about the pairs the evidence left open, with its header.
    expect(server.requests.some((r) => r.stage === "resolve")).toBe(true);
    const kgrag = await createKgrag({ env });
    try {
      const hits = await kgrag.services.store.searchEntityText("Mr Scrooge", 3);
      expect(hits[0]?.id).toBe(scrooge.key);
    } finally {
      await kgrag.close();
    }
  });

  it("exports aliases in JSON and GraphML", async () => {
    const json = join(root, "graph.json");
    const graphml = join(root, "graph.graphml");
    expect((await runMain(["export", "--out", json], env)).code).toBe(0);
    expect((await runMain(["export", "--out", graphml], env)).code).toBe(0);
    const nodes = (JSON.parse(readFileSync(json, "utf8")) as { nodes: { id: string; aliases: string[] }[] })
      .nodes;
    expect(nodes.find((n) => n.id === "ebenezer scrooge")?.aliases).toEqual(["MR. SCROOGE", "SCROOGE"]);
    expect(nodes.find((n) => n.id === "joe")?.aliases).toEqual([]);
    const xml = readFileSync(graphml, "utf8");
    expect(xml).toMatch(/attr.name="aliases"/);
    expect(xml).toContain("MR. SCROOGE;SCROOGE");
  });

  it("lists the pairs left apart with their evidence", async () => {
    const { stdout, code } = await entities("list", "--duplicates");
    expect(code).toBe(0);
    const pairs = (JSON.parse(stdout) as { duplicates: { names: string[]; why: string }[] }).duplicates;
    const tim = pairs.find((p) => p.names.includes("TIM CRATCHIT") && p.names.includes("TINY TIM"));
    expect(tim?.why).toMatch(/1 shared neighbour,/);
    expect(pairs.some((p) => p.names.includes("MR. FEZZIWIG") && p.names.includes("MRS. FEZZIWIG"))).toBe(
      false,
    );
  });

  it("keeps hand edits through a re-index and a delete", async () => {
    expect((await entities("merge", "TIM CRATCHIT", "TINY TIM", "--into", "TINY TIM")).code).toBe(0);
    expect((await entities("merge", "SCROOGE'S NEPHEW", "FRED", "--into", "FRED")).code).toBe(0);
    expect((await entities("rename", "BELLE", "Belle (Scrooge's fiancée)")).code).toBe(0);
    expect((await entities("edit", "TOPPER", "--type", "guest")).code).toBe(0);
    expect((await entities("split", "TINY TIM", "TIM")).code).toBe(0);
    expect((await entities("delete", "CHARWOMAN")).code).toBe(0);
    expect((await entities("unlink", "FRED", "TOPPER")).code).toBe(0);
    const link = await entities(
      "link",
      "FAN",
      "FRED",
      "--description",
      "Fan is Fred's mother.",
      "--keywords",
      "family",
    );
    expect(link.code).toBe(0);
    const added = await entities(
      "add",
      "Marley's Door-knocker",
      "--type",
      "object",
      "--description",
      "The knocker that showed Marley's face.",
    );
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ key: "marley's door-knocker", type: "object" });
    expect(
      (await entities("link", "Marley's Door-knocker", "SCROOGE", "--description", "It frightened him."))
        .code,
    ).toBe(0);
    const taken = await entities("add", "Fred", "--description", "Another Fred.");
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(/"Fred" already names another entity \("FRED"/);
    const unknown = await entities("rename", "NOBODY", "x");
    expect(unknown.code).toBe(2);

    const check = async () => {
      const all = await listed();
      expect(named(all, "FRED")!.aliases).toEqual(["SCROOGE'S NEPHEW"]);
      expect(named(all, "TINY TIM")!.aliases).toEqual(["TIM CRATCHIT"]);
      expect(named(all, "Belle (Scrooge's fiancée)")).toBeDefined();
      expect(named(all, "TOPPER")?.type).toBe("guest");
      expect(named(all, "TIM")!.key).not.toBe(named(all, "TINY TIM")!.key);
      expect(named(all, "CHARWOMAN")).toBeUndefined();
      expect(named(all, "Marley's Door-knocker")).toMatchObject({
        type: "object",
        description: "The knocker that showed Marley's face.",
        sourceChunkIds: [],
      });
      const kgrag = await createKgrag({ env });
      try {
        const rels = await kgrag.services.store.listRelationships();
        const between = (a: string, b: string) =>
          rels.find((r) => [r.sourceKey, r.targetKey].sort().join("|") === [a, b].sort().join("|"));
        expect(between("fred", "topper")).toBeUndefined();
        expect(between("fan", "fred")?.description).toBe("Fan is Fred's mother.");
        expect(between("fan", "fred")?.sourceChunkIds).toEqual([]);
        expect(rels.some((r) => r.sourceKey === "charwoman" || r.targetKey === "charwoman")).toBe(false);
        expect(between("ebenezer scrooge", "marley's door-knocker")?.description).toBe("It frightened him.");
      } finally {
        await kgrag.close();
      }
    };
    await check();
    const history = JSON.parse((await entities("history", "FRED")).stdout) as {
      history: { cause: string; at: string }[];
    };
    expect(history.history.some((h) => /merge .* by alice/.test(h.cause) && h.at)).toBe(true);

    // An edited passage is re-extracted and re-folded; a deleted document's mentions go.
    const passage = CAROL_PASSAGES.find((p) => p.marker === "CAROL06")!;
    writeFileSync(join(root, "CAROL06.txt"), `${passage.text} Fezziwig laughed.`);
    expect((await runMain(["index", root, "--json", "--no-communities"], env)).code).toBe(0);
    await check();
    const status = JSON.parse((await runMain(["status", "--json"], env)).stdout) as {
      documents: { id: string; title: string; path: string | null }[];
    };
    const doomed = status.documents.find((d) => d.path?.endsWith("CAROL11.txt"))!;
    expect((await runMain(["delete", doomed.id, "--json"], env)).code).toBe(0);
    await check();
  });
});
