/**
 * Two `index` runs through a flaky scripted OpenAI-compatible server, compared with a clean run:
 * 7% 429s, 7% 500s, 3% hangs past an 0.8 s timeout and 10% of extract, glean and report replies
 * whose JSON is cut in half yet marked finish_reason "stop", on every call of both runs.
 * Prints mentions and chunks not fully merged after each run, and whether the graph equals the
 * clean run's. Run: npx tsx bench/flaky-replies.ts (BENCH_DOCS=150 passages by default).
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKgrag } from "../src/kgrag.js";
import { openSqliteStore } from "../src/storage/sqlite/sqlite-store.js";
import { workspaceSnapshot } from "../test/support/graph-snapshot.js";
import {
  EMPTY_EXTRACTION,
  extractReply,
  llmEnv,
  REPORT_REPLY,
  summarizeReply,
  writeCorpus,
} from "../test/support/lifecycle-corpus.js";
import {
  type ChatCall,
  type ScriptedReply,
  scriptByStage,
  startScriptedOpenAI,
} from "../test/support/scripted-openai-server.js";

const DOCS = Number(process.env.BENCH_DOCS ?? 150);

/** A fixed pseudo-random number per call, so every run of the benchmark meets the same faults. */
const unit = (text: string) => createHash("sha256").update(text).digest().readUInt32BE(0) / 2 ** 32;

let faults = true;
let calls = 0;
function flaky(call: ChatCall, reply: ScriptedReply): ScriptedReply {
  if (!faults || !("content" in reply)) return reply;
  const r = unit(`${calls++}|${call.stage}`);
  if (r < 0.07) return { status: 429, headers: { "retry-after-ms": "5" } };
  if (r < 0.14) return { status: 500, headers: { "retry-after-ms": "5" } };
  if (r < 0.17) return { hang: true };
  if (r < 0.27 && call.stage !== "summarize") {
    return { content: reply.content.slice(0, Math.floor(reply.content.length / 2)) };
  }
  return reply;
}

async function state(workspace: string) {
  const store = await openSqliteStore(workspace);
  const notMerged = (await store.getChunkStates()).filter((s) => s.status !== "merged").length;
  await store.close();
  return { snapshot: await workspaceSnapshot(workspace), notMerged };
}

const root = mkdtempSync(join(tmpdir(), "kgrag-bench-flaky-"));
const server = await startScriptedOpenAI({
  embeddingDimension: 32,
  chat: scriptByStage({
    extract: (call) => flaky(call, extractReply(call)),
    glean: (call) => flaky(call, { content: EMPTY_EXTRACTION }),
    summarize: (call) => flaky(call, summarizeReply(call)),
    report: (call) => flaky(call, REPORT_REPLY),
  }),
});
try {
  const folder = join(root, "corpus");
  writeCorpus(folder, DOCS, 41);
  const env = llmEnv(server.baseURL, { KGRAG_LLM_TIMEOUT_MS: "800" });
  const runs = [];
  for (let run = 1; run <= 2; run++) {
    const kgrag = await createKgrag({ env, config: { workspace: join(root, "ws") } });
    await kgrag.index([folder]);
    await kgrag.close();
    runs.push(await state(join(root, "ws")));
  }
  faults = false;
  const clean = await createKgrag({ env, config: { workspace: join(root, "clean") } });
  await clean.index([folder]);
  await clean.close();
  const reference = await state(join(root, "clean"));
  const same = (a: unknown) => JSON.stringify(a) === JSON.stringify(reference.snapshot);
  runs.forEach(({ snapshot, notMerged }, i) => {
    console.log(
      `run ${i + 1}: ${snapshot.mentions.length} of ${reference.snapshot.mentions.length} mentions, ` +
        `${snapshot.entities.length}/${reference.snapshot.entities.length} entities, ` +
        `${snapshot.relationships.length}/${reference.snapshot.relationships.length} relationships, ` +
        `${notMerged} chunk(s) not fully merged, graph equals the clean run's: ${same(snapshot)}`,
    );
  });
} finally {
  await server.close();
  rmSync(root, { recursive: true, force: true });
}
