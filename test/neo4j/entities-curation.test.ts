import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Driver } from "neo4j-driver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EntityRecord } from "../../src/types.js";
import { CAROL_PASSAGES, carolExtraction, scoreCarolAliases } from "../fixtures/christmas-carol.js";
import { runMain } from "../support/cli-in-process.js";
import { liveDriver, liveNeo4j, skipReason } from "../support/live-neo4j.js";
import {
  lastUserMessage,
  type ScriptedServer,
  startScriptedOpenAI,
} from "../support/scripted-openai-server.js";

const EMPTY = JSON.stringify({ entities: [], relationships: [] });

/** The same resolution and curation as on SQLite (test/e2e/entities-curation.test.ts), on a live Neo4j. */
describe.skipIf(!liveNeo4j)(
  `Entity resolution and curation on Neo4j (${liveNeo4j ? "live" : skipReason})`,
  () => {
    let root: string;
    let server: ScriptedServer;
    let driver: Driver;
    let env: Record<string, string>;
    const workspace = `entities-${randomUUID()}`;

    beforeAll(async () => {
      if (!liveNeo4j) return;
      driver = liveDriver(liveNeo4j);
      root = mkdtempSync(join(tmpdir(), "kgrag-neo4j-entities-"));
      for (const p of CAROL_PASSAGES) writeFileSync(join(root, `${p.marker}.txt`), p.text);
      server = await startScriptedOpenAI({
        chat: (call) => {
          if (call.stage === "extract") return { content: carolExtraction(lastUserMessage(call)) };
          if (call.stage === "resolve")
            return { content: JSON.stringify({ same: false, reason: "not sure" }) };
          return { content: EMPTY };
        },
      });
      env = {
        KGRAG_LLM_BASE_URL: server.baseURL,
        KGRAG_LLM_API_KEY: "k",
        KGRAG_LLM_MODEL: "scripted",
        KGRAG_WORKSPACE: join(root, workspace),
        KGRAG_STORAGE: "neo4j",
        NEO4J_URI: liveNeo4j.uri,
        NEO4J_USERNAME: liveNeo4j.username,
        NEO4J_PASSWORD: liveNeo4j.password,
        KGRAG_USER: "bob",
      };
    });

    afterAll(async () => {
      if (!liveNeo4j) return;
      await driver.executeQuery("MATCH (n {workspace: $workspace}) DETACH DELETE n", { workspace });
      await driver.close();
      await server.close();
      rmSync(root, { recursive: true, force: true });
    });

    const entities = (...args: string[]) => runMain(["entities", ...args, "--json"], env);
    const listed = async (): Promise<EntityRecord[]> =>
      (JSON.parse((await entities("list")).stdout) as { entities: EntityRecord[] }).entities;
    const named = (all: EntityRecord[], name: string) =>
      all.find((e) => e.name === name || (e.aliases ?? []).includes(name));

    it("resolves aliases with no wrong merge, and keeps hand edits through a re-index and a delete", async () => {
      const indexed = await runMain(["index", root, "--json", "--no-communities"], env);
      expect(indexed.code, indexed.stderr).toBe(0);
      const resolved = await listed();
      expect(scoreCarolAliases(resolved).wrong).toEqual([]);
      expect(new Set(named(resolved, "SCROOGE")?.aliases)).toEqual(new Set(["SCROOGE", "MR. SCROOGE"]));

      expect((await entities("merge", "SCROOGE'S NEPHEW", "FRED", "--into", "FRED")).code).toBe(0);
      expect((await entities("split", "EBENEZER SCROOGE", "MR. SCROOGE")).code).toBe(0);
      expect((await entities("delete", "CHARWOMAN")).code).toBe(0);
      expect((await entities("link", "FAN", "FRED", "--description", "Fan is Fred's mother.")).code).toBe(0);
      const check = async () => {
        const all = await listed();
        expect(named(all, "FRED")?.aliases).toEqual(["SCROOGE'S NEPHEW"]);
        expect(named(all, "EBENEZER SCROOGE")?.aliases).toEqual(["SCROOGE"]);
        expect(named(all, "MR. SCROOGE")?.key).toBe("mr. scrooge");
        expect(named(all, "CHARWOMAN")).toBeUndefined();
      };
      await check();

      const passage = CAROL_PASSAGES.find((p) => p.marker === "CAROL02")!;
      writeFileSync(join(root, "CAROL02.txt"), `${passage.text} Scrooge grumbled.`);
      expect((await runMain(["index", root, "--json", "--no-communities"], env)).code).toBe(0);
      await check();
      const status = JSON.parse((await runMain(["status", "--json"], env)).stdout) as {
        documents: { id: string; path: string | null }[];
      };
      const doomed = status.documents.find((d) => d.path?.endsWith("CAROL11.txt"))!;
      expect((await runMain(["delete", doomed.id, "--json"], env)).code).toBe(0);
      await check();
      const history = JSON.parse((await entities("history", "FRED")).stdout) as {
        history: { cause: string }[];
      };
      expect(history.history.some((h) => /by bob/.test(h.cause))).toBe(true);
      // Seven CLI runs against a server, three of them indexing: past the default timeout on a busy machine.
    }, 180_000);
  },
);
