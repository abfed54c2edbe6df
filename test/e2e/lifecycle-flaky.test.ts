import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createKgrag } from "../../src/kgrag.js";
import { entityKey } from "../../src/merge/keys.js";
import { openSqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import { jsonOutput } from "../support/cli-child.js";
import { runMain } from "../support/cli-in-process.js";
import { workspaceSnapshot } from "../support/graph-snapshot.js";
import {
  EMPTY_EXTRACTION,
  extractReply,
  llmEnv,
  promptPassage,
  REPORT_REPLY,
  recordOf,
  scriptedExtraction,
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

/**
 * JSON cut off by the output limit where nothing usable survives: repair closes the long leading
 * string, and what is left has no entity list.
 */
function unusableTruncation(call: ChatCall): ScriptedReply {
  const notes = "The passage names a person, an organisation and a place. ".repeat(40);
  return { truncate: true, content: JSON.stringify({ notes, ...scriptedExtraction(promptPassage(call)) }) };
}

const fail500: ScriptedReply = { status: 500, headers: { "retry-after-ms": "5" } };

/** Per record: what its first calls get before the model answers properly (undefined: answer). */
const FAULTS: Record<number, (attempt: number, call: ChatCall) => ScriptedReply | undefined> = {
  1: (n) =>
    n === 0
      ? { status: 429, headers: { "retry-after": "1" }, body: { error: { message: "rate limited" } } }
      : undefined,
  2: (n) => (n < 2 ? { status: 500 } : undefined),
  3: (n) => (n === 0 ? { hang: true } : undefined),
  4: (n, call) => (n === 0 ? unusableTruncation(call) : undefined),
  // Failing beyond every limit in the first run:
  5: () => fail500,
  7: (_, call) => unusableTruncation(call),
};
const PERSISTENT = [5, 7];
/** Passages of the corpus's first group: the ones "Lumen Robotics" (8 fragments, so summarised) comes from. */
const LUMEN_RECORDS = [0, 3, 6, 9, 12, 15, 18, 21];

describe("indexing against a flaky model (scripted server, CLI)", () => {
  let root: string;
  let server: ScriptedServer;
  let healthy: boolean;
  const attempts = new Map<number, number>();

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-flaky-"));
    healthy = false;
    attempts.clear();
    const extract = (call: ChatCall): ScriptedReply => {
      const record = recordOf(call);
      const attempt = attempts.get(record) ?? 0;
      attempts.set(record, attempt + 1);
      const fault = healthy ? undefined : FAULTS[record]?.(attempt, call);
      return fault ?? extractReply(call);
    };
    // Summarising one entity fails beyond the retry limit in the first run.
    const summarize = (call: ChatCall): ScriptedReply => {
      const subject = /description of:\n\n(.*)\n/.exec(call.body.messages?.[0]?.content ?? "")?.[1];
      return !healthy && subject === "Lumen Robotics" ? fail500 : summarizeReply(call);
    };
    server = await startScriptedOpenAI({
      embeddingDimension: 32,
      chat: scriptByStage({
        extract,
        glean: { content: EMPTY_EXTRACTION },
        summarize,
        report: REPORT_REPLY,
      }),
    });
  });

  afterEach(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("retries within limits, marks what still failed, exits non-zero, then retries only that", async () => {
    const folder = join(root, "corpus");
    const paths = writeCorpus(folder, 24, 41);
    const ws = join(root, "ws");
    const env = llmEnv(server.baseURL, { KGRAG_LLM_TIMEOUT_MS: "1000" });

    const first = await runMain(["index", folder, "--workspace", ws, "--json"], env);
    expect(first.code).toBe(1);
    const summary = jsonOutput<{
      documents: number;
      failed: number;
      failures: { docId: string; error: string }[];
    }>(first);
    const failedRecords = [...PERSISTENT, ...LUMEN_RECORDS].sort((a, b) => a - b);
    expect(summary.documents).toBe(24);
    expect(summary.failed).toBe(failedRecords.length);
    // The transient faults were ridden out: 429 (Retry-After honoured), two 500s, a hang, a cut answer.
    for (const record of [1, 2, 3, 4]) expect(attempts.get(record)).toBeGreaterThan(1);
    expect(attempts.get(5)).toBe(6);

    const store = await openSqliteStore(ws);
    try {
      const failedDocs = (await store.listDocuments()).filter((d) => d.status === "failed");
      expect(failedDocs.map((d) => d.path).sort()).toEqual(failedRecords.map((r) => paths[r]).sort());
      expect(summary.failures.map((f) => f.docId).sort()).toEqual(failedDocs.map((d) => d.id).sort());
      const reasons = Object.fromEntries(failedDocs.map((d) => [d.path, d.error ?? ""]));
      expect(reasons[paths[5] ?? ""]).toMatch(/failed after 6 attempts; last error: HTTP 500/);
      expect(reasons[paths[7] ?? ""]).toMatch(/Unreadable extraction output after 2 attempts/);
      for (const record of LUMEN_RECORDS) {
        expect(reasons[paths[record] ?? ""]).toMatch(
          /description summary of entity "Lumen Robotics" failed: .*HTTP 500/,
        );
      }
      const chunkStates = await store.getChunkStates();
      const failedChunks = chunkStates.filter((s) => s.status === "failed");
      expect(failedChunks).toHaveLength(2);
      expect(failedChunks.every((s) => s.error)).toBe(true);
      expect(failedChunks.some((s) => s.rawOutput?.includes('"notes"'))).toBe(true);
      expect(chunkStates.filter((s) => s.status === "merged")).toHaveLength(22);
      const [lumen] = await store.getEntities([entityKey("Lumen Robotics")]);
      expect(lumen?.needsSummary).toBe(true);
    } finally {
      await store.close();
    }

    healthy = true;
    const before = server.countByStage();
    const second = await runMain(["index", folder, "--workspace", ws, "--json"], env);
    expect(second.code).toBe(0);
    expect(jsonOutput<{ failed: number }>(second).failed).toBe(0);
    const after = server.countByStage();
    // Only the two failed chunks were asked again, once each, and the failed summary redone.
    expect((after.extract ?? 0) - (before.extract ?? 0)).toBe(2);
    expect((after.glean ?? 0) - (before.glean ?? 0)).toBe(2);
    expect((after.summarize ?? 0) - (before.summarize ?? 0)).toBeGreaterThan(0);

    const clean = await createKgrag({ env, config: { workspace: join(root, "clean") } });
    await clean.index([folder]);
    await clean.close();
    expect(await workspaceSnapshot(ws)).toEqual(await workspaceSnapshot(join(root, "clean")));
  }, 120_000);
});
