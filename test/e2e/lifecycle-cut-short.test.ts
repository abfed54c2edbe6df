import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isCompleteExtraction } from "../../src/extraction/parse.js";
import { createKgrag } from "../../src/kgrag.js";
import { openSqliteStore, SQLITE_FILE_NAME } from "../../src/storage/sqlite/sqlite-store.js";
import { jsonOutput, runCli } from "../support/cli-child.js";
import { workspaceSnapshot } from "../support/graph-snapshot.js";
import {
  EMPTY_EXTRACTION,
  extractReply,
  llmEnv,
  REPORT_REPLY,
  recordOf,
  summarizeReply,
  writeCorpus,
} from "../support/lifecycle-corpus.js";
import {
  type ChatCall,
  type ScriptedReply,
  type ScriptedServer,
  scriptByStage,
  startScriptedOpenAI,
} from "../support/scripted-openai-server.js";

/** A complete reply cut in half, yet marked finished: only the JSON itself shows the cut. */
function cutInHalf(reply: ScriptedReply): ScriptedReply {
  if (!("content" in reply)) return reply;
  return { content: reply.content.slice(0, Math.floor(reply.content.length / 2)), finishReason: "stop" };
}

/** A number in [0, 1) fixed by the text, so the fault mix is the same on every test run. */
function unitHash(text: string): number {
  return createHash("sha256").update(text).digest().readUInt32BE(0) / 2 ** 32;
}

const quickRetry = { "retry-after-ms": "5" };
/** Records whose every extraction answer is cut short in the first run. */
const ALWAYS_CUT = [2, 5];

describe("indexing through a model that cuts JSON short (scripted server, CLI)", () => {
  let root: string;
  let server: ScriptedServer;
  let run: number;
  let faults: boolean;
  const asked = new Map<string, number>();
  const extractCalls: { run: number; record: number }[] = [];

  /**
   * The first ask of each prompt meets the fault mix: 429s, 500s, hangs past the timeout and, for
   * the JSON stages, about 10% of replies cut in half with finish_reason "stop". A repeated prompt
   * is answered properly, so only the ALWAYS_CUT records can exhaust their attempts.
   */
  function fault(call: ChatCall, reply: ScriptedReply): ScriptedReply {
    const prompt = JSON.stringify(call.body.messages);
    const seen = asked.get(prompt) ?? 0;
    asked.set(prompt, seen + 1);
    if (!faults) return reply;
    if (run === 1 && call.stage === "extract" && ALWAYS_CUT.includes(recordOf(call))) return cutInHalf(reply);
    if (seen > 0) return reply;
    const r = unitHash(`${run}|${call.stage}|${prompt}`);
    if (r < 0.07) return { status: 429, headers: quickRetry, body: { error: { message: "rate limited" } } };
    if (r < 0.14) return { status: 500, headers: quickRetry };
    if (r < 0.17) return { hang: true };
    const firstAsk = (call.body.messages ?? []).length === 1;
    if (r < 0.27 && firstAsk && (call.stage === "extract" || call.stage === "report"))
      return cutInHalf(reply);
    return reply;
  }

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-cut-"));
    run = 1;
    faults = true;
    asked.clear();
    extractCalls.length = 0;
    server = await startScriptedOpenAI({
      embeddingDimension: 32,
      chat: scriptByStage({
        extract: (call) => {
          extractCalls.push({ run, record: recordOf(call) });
          return fault(call, extractReply(call));
        },
        glean: (call) => fault(call, { content: EMPTY_EXTRACTION }),
        summarize: (call) => fault(call, summarizeReply(call)),
        report: (call) => fault(call, REPORT_REPLY),
      }),
    });
  });

  afterEach(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("never keeps a cut-short reply as final: partial chunks are asked again and the second run equals a clean one", async () => {
    const folder = join(root, "corpus");
    const paths = writeCorpus(folder, 24, 41);
    const ws = join(root, "ws");
    const env = llmEnv(server.baseURL, { KGRAG_LLM_TIMEOUT_MS: "800" });

    const first = await runCli(["index", folder, "--workspace", ws, "--json"], env);
    expect(first.code).toBe(1);
    const summary = jsonOutput<{ failures: { docId: string; error: string }[] }>(first);
    expect(summary.failures).toHaveLength(ALWAYS_CUT.length);
    expect(summary.failures.every((f) => /cut short/.test(f.error))).toBe(true);
    // The fault mix did hit: some replies were cut in half and asked again.
    expect(server.count("extract")).toBeGreaterThan(24 + ALWAYS_CUT.length);

    const store = await openSqliteStore(ws);
    try {
      const states = await store.getChunkStates();
      const partial = states.filter((s) => s.status === "partial");
      const partialDocs = await Promise.all(partial.map((s) => store.getDocument(s.docId)));
      expect(partialDocs.map((d) => d?.path).sort()).toEqual(ALWAYS_CUT.map((r) => paths[r]).sort());
      // kgrag status counts them beside the failed ones (it said "24 chunks (0 failed)" under failed documents).
      expect((await store.counts()).partialChunks).toBe(partial.length);
      const status = await runCli(["status", "--workspace", ws], env);
      expect(status.stdout).toContain(`chunks (0 failed, ${partial.length} cut short)`);
      expect(states.filter((s) => s.status === "merged")).toHaveLength(24 - ALWAYS_CUT.length);
      // The partial extraction is used meanwhile: its chunk has mentions in the graph.
      const mentions = await store.getChunkMentions(partial.map((s) => s.chunkId));
      expect(mentions.entities.length).toBeGreaterThan(0);
      expect(partial.every((s) => s.rawOutput && !isCompleteExtraction(s.rawOutput))).toBe(true);
    } finally {
      await store.close();
    }
    const db = new Database(join(ws, SQLITE_FILE_NAME), { readonly: true });
    const cachedExtractions = db.prepare("SELECT response FROM llm_cache WHERE stage = 'extract'").all() as {
      response: string;
    }[];
    db.close();
    expect(cachedExtractions.length).toBeGreaterThan(0);
    expect(cachedExtractions.every((row) => isCompleteExtraction(row.response))).toBe(true);

    run = 2;
    const second = await runCli(["index", folder, "--workspace", ws, "--json"], env);
    expect(second.code).toBe(0);
    // Only the partial chunks were asked again (a cut reply among them is asked once more).
    const askedAgain = extractCalls.filter((c) => c.run === 2).map((c) => c.record);
    expect(new Set(askedAgain)).toEqual(new Set(ALWAYS_CUT));

    faults = false;
    const clean = await createKgrag({ env, config: { workspace: join(root, "clean") } });
    await clean.index([folder]);
    await clean.close();
    expect(await workspaceSnapshot(ws)).toEqual(await workspaceSnapshot(join(root, "clean")));
  }, 120_000);
});
