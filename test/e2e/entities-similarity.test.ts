import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KgragConfigInput } from "../../src/config.js";
import { createKgrag } from "../../src/kgrag.js";
import { CAROL_PASSAGES, carolExtraction, scoreCarolAliases } from "../fixtures/christmas-carol.js";
import {
  type ChatCall,
  lastUserMessage,
  type ScriptedServer,
  startScriptedOpenAI,
} from "../support/scripted-openai-server.js";

/** Names the confirmation prompt asks about. */
function askedNames(call: ChatCall): string[] {
  return [...lastUserMessage(call).matchAll(/^Entity [AB]: (.+) \(/gm)].map((m) => m[1] ?? "");
}

const isFredAndNephew = (names: string[]) =>
  [...names].sort().join("|") === ["FRED", "SCROOGE'S NEPHEW"].join("|");

/**
 * "FRED" and "SCROOGE'S NEPHEW" share no name, so only embedding similarity pairs them (the offline
 * hashing embedder here, with its default threshold). The confirmation model says "same" for that
 * pair only, so a merge of it shows the similarity pair reached the confirm stage.
 */
describe("embedding-similarity candidates (scripted LLM extraction of A Christmas Carol)", () => {
  let root: string;
  let server: ScriptedServer;
  const asked: string[][] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-similar-"));
    for (const p of CAROL_PASSAGES) writeFileSync(join(root, `${p.marker}.txt`), p.text);
    server = await startScriptedOpenAI({
      chat: (call) => {
        if (call.stage === "extract") return { content: carolExtraction(lastUserMessage(call)) };
        if (call.stage === "resolve") {
          const names = askedNames(call);
          asked.push(names);
          return { content: JSON.stringify({ same: isFredAndNephew(names), reason: "scripted" }) };
        }
        if (call.stage === "summarize") return { content: "A summary." };
        return { content: JSON.stringify({ entities: [], relationships: [] }) };
      },
    });
  });

  afterAll(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  const open = (name: string, resolution: KgragConfigInput["resolution"]) =>
    createKgrag({
      env: { KGRAG_LLM_BASE_URL: server.baseURL, KGRAG_LLM_API_KEY: "k", KGRAG_LLM_MODEL: "scripted" },
      config: { workspace: join(root, name), community: { enabled: false }, resolution },
    });
  const SIMILARITY = { enabled: true };

  it("asks the model about a pair only similarity found, and merges it when the model agrees", async () => {
    const kgrag = await open("with-similarity", { similarity: SIMILARITY });
    try {
      await kgrag.index([root]);
      expect(asked.some(isFredAndNephew)).toBe(true);
      const entities = await kgrag.entities.list();
      expect(scoreCarolAliases(entities).wrong).toEqual([]);
      const fred = await kgrag.entities.get("FRED");
      expect(fred.aliases).toEqual(["SCROOGE'S NEPHEW"]);
      const merge = (await kgrag.entities.rules()).find(
        (r) => r.kind === "merge" && r.from === "scrooge's nephew",
      );
      expect(merge?.note).toMatch(/similar name and description/);
    } finally {
      await kgrag.close();
    }
  });

  it("without similarity the pair is never asked about", async () => {
    asked.length = 0;
    const kgrag = await open("names-only", { similarity: { enabled: false } });
    try {
      await kgrag.index([root]);
      expect(asked.some(isFredAndNephew)).toBe(false);
      expect((await kgrag.entities.get("FRED")).aliases ?? []).toEqual([]);
    } finally {
      await kgrag.close();
    }
  });

  it("without a confirmation model the pair is listed as a duplicate with its evidence", async () => {
    asked.length = 0;
    const kgrag = await open("no-confirmation", { similarity: SIMILARITY, confirmWithModel: false });
    try {
      await kgrag.index([root]);
      expect(asked).toEqual([]);
      expect((await kgrag.entities.get("FRED")).aliases ?? []).toEqual([]);
      const pair = (await kgrag.entities.duplicates()).find((p) => isFredAndNephew(p.names));
      expect(pair).toMatchObject({ foundBy: "similarity", decision: "confirm" });
      expect(pair?.why).toMatch(/similar name and description \(0\.\d\d\); .*shared passages?/);
    } finally {
      await kgrag.close();
    }
  });
});
