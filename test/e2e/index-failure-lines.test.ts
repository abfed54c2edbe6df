import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runMain } from "../support/cli-in-process.js";
import {
  extractReply,
  llmEnv,
  recordOf,
  startLifecycleServer,
  writeCorpus,
} from "../support/lifecycle-corpus.js";
import type { ScriptedServer } from "../support/scripted-openai-server.js";

let server: ScriptedServer | undefined;
let root: string | undefined;
afterEach(async () => {
  await server?.close();
  if (root) rmSync(root, { recursive: true, force: true });
  server = undefined;
  root = undefined;
});

describe("kgrag index with a model that breaks the format", () => {
  it("keeps the other documents and names the failed one's file and reason", async () => {
    // A small model answering in LightRAG's tuple format instead of the JSON asked for.
    const tuples = '("entity"<|>"Mara Okafor"<|>"person"<|>"founder")##<|COMPLETE|>';
    server = await startLifecycleServer({
      extract: (call) => (recordOf(call) === 1 ? { content: tuples } : extractReply(call)),
    });
    root = mkdtempSync(join(tmpdir(), "kgrag-failure-lines-"));
    writeCorpus(join(root, "corpus"), 3, 41);
    const env = llmEnv(server.baseURL, { KGRAG_WORKSPACE: join(root, "ws") });
    const run = await runMain(["index", join(root, "corpus")], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /^FAILED doc-0001\.txt \(document doc-[0-9a-f]+\): 1 of 1 chunks not fully merged: Unreadable extraction output after 2 attempts: /m,
    );
    expect(run.stdout).toContain("3 new");
    expect(run.stdout).toContain("1 document(s) failed");
  });
});
