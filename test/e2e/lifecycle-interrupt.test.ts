import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { handleInterrupts } from "../../src/cli/interrupt.js";
import { IndexInterruptedError } from "../../src/index.js";
import { createKgrag } from "../../src/kgrag.js";
import { silentProgress } from "../../src/util/progress.js";
import { type CliChild, startCli } from "../support/cli-child.js";
import { runMain } from "../support/cli-in-process.js";
import { type GraphSnapshot, integrityCheck, workspaceSnapshot } from "../support/graph-snapshot.js";
import { llmEnv, seededRandom, startLifecycleServer, writeCorpus } from "../support/lifecycle-corpus.js";
import type { ScriptedServer } from "../support/scripted-openai-server.js";

const DOCS = 24;
const LOCK = "kgrag.lock";

interface InterruptedJson {
  interrupted: true;
  documents: { done: number; pending: number; notChunked: number };
  chunks: { done: number; pending: number };
}

/**
 * Ctrl-C (SIGINT) or SIGTERM at seeded random moments of `kgrag index` against a scripted model
 * with latency: every run ends with 130 (stopped) or 0 (it had finished), leaves no lock, and a
 * resumed run gives the graph of a clean one. Eight runs in process (the CLI's own handlers,
 * called as the OS would), then real signals to child processes, once and twice.
 */
describe("interrupting `kgrag index`", () => {
  let root: string;
  let folder: string;
  let server: ScriptedServer;
  let env: Record<string, string>;
  let clean: GraphSnapshot;
  /** How long an uninterrupted run takes here: signals are sent within that span after it starts. */
  let runMs: number;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-sigint-"));
    server = await startLifecycleServer({ latencyMs: 15 });
    env = llmEnv(server.baseURL, { KGRAG_LLM_CONCURRENCY: "2" });
    folder = join(root, "corpus");
    writeCorpus(folder, DOCS, 41);
    // A separate server, so the clean run's answers are not in any cache the interrupted runs see.
    const cleanServer = await startLifecycleServer({ latencyMs: 15 });
    try {
      const kgrag = await createKgrag({
        env: llmEnv(cleanServer.baseURL, { KGRAG_LLM_CONCURRENCY: "2" }),
        config: { workspace: join(root, "clean") },
      });
      await kgrag.index([folder]);
      await kgrag.close();
      // Timed on a second workspace: the first run also paid for loading the tokenizer and NLP.
      const warm = await createKgrag({
        env: llmEnv(cleanServer.baseURL, { KGRAG_LLM_CONCURRENCY: "2" }),
        config: { workspace: join(root, "clean-warm") },
      });
      const started = performance.now();
      await warm.index([folder]);
      runMs = performance.now() - started;
      await warm.close();
    } finally {
      await cleanServer.close();
    }
    clean = await workspaceSnapshot(join(root, "clean"));
  });

  afterAll(async () => {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** Resumes in process (the lock must be free at once) and returns the finished graph. */
  async function resume(ws: string): Promise<GraphSnapshot> {
    const kgrag = await createKgrag({ env, config: { workspace: ws } });
    try {
      const summary = await kgrag.index([folder]);
      expect(summary.failures).toEqual([]);
    } finally {
      await kgrag.close();
    }
    expect(integrityCheck(ws)).toBe("ok");
    return workspaceSnapshot(ws);
  }

  it("in process: SIGINT/SIGTERM at 8 random moments stops, reports, frees the lock; resumes to a clean graph", async () => {
    const random = seededRandom(130);
    // The CLI in process reads its settings from the environment.
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    const uninstall = handleInterrupts();
    // A signal that lands after the run ended would exit the test worker: record it instead.
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    const stoppedCodes: number[] = [];
    try {
      for (let run = 0; run < 8; run++) {
        const ws = join(root, `ws-${run}`);
        const signal = run % 2 === 1 ? "SIGTERM" : "SIGINT";
        // The CLI's handlers as the OS would call them; the child runs below deliver real signals.
        const timer = setTimeout(() => process.emit(signal, signal), Math.floor(random() * runMs));
        const result = await runMain(["index", folder, "--workspace", ws, "--json"]);
        clearTimeout(timer);
        expect([0, 130], result.stderr).toContain(result.code);
        if (result.code === 130) {
          stoppedCodes.push(run);
          const stopped = JSON.parse(result.stdout) as InterruptedJson;
          expect(stopped.interrupted).toBe(true);
          expect(stopped.documents.done + stopped.documents.pending).toBe(DOCS);
          expect(result.stderr).toContain(`kgrag: ${signal}: stopping after the current batch`);
          // The run after a stop counts the documents it finished for the stopped one.
          const again = JSON.parse(
            (await runMain(["index", folder, "--workspace", ws, "--json"])).stdout,
          ) as {
            added: number;
            resumed: number;
            unchanged: number;
          };
          expect(again.added + again.resumed + again.unchanged).toBe(DOCS);
          expect(again.resumed).toBe(stopped.documents.pending - again.added);
        }
        expect(existsSync(join(ws, LOCK)), `run ${run} left its lock`).toBe(false);
        expect(await resume(ws)).toEqual(clean);
      }
    } finally {
      uninstall();
      exit.mockRestore();
      vi.unstubAllEnvs();
    }
    // The random points must really have stopped runs: otherwise nothing above was tested.
    expect(stoppedCodes.length).toBeGreaterThanOrEqual(4);
  });

  /**
   * Runs `kgrag index` in a child against a scripted model of its own and calls `interrupt` once
   * the child is extracting (it holds the lock then); returns how the child ended.
   */
  async function interruptedChild(ws: string, interrupt: (child: CliChild) => Promise<void>) {
    const own = await startLifecycleServer({ latencyMs: 15 });
    try {
      const child = startCli(
        ["index", folder, "--workspace", ws, "--json"],
        llmEnv(own.baseURL, { KGRAG_LLM_CONCURRENCY: "2" }),
      );
      while (own.count("extract") === 0 && child.process.exitCode === null) await sleep(5);
      await interrupt(child);
      return await child.done;
    } finally {
      await own.close();
    }
  }

  async function oneSigint(): Promise<void> {
    const ws = join(root, "ws-child");
    const result = await interruptedChild(ws, async (child) => {
      child.process.kill("SIGINT");
    });
    expect(result.signal, result.stderr).toBeNull();
    expect(result.code, result.stderr).toBe(130);
    const stopped = JSON.parse(result.stdout) as InterruptedJson;
    // Extraction starts on the first registered documents (indexOverlap.firstRegistrationChunks):
    // the stop may come before the others are registered, and they have no chunks yet (one chunk
    // per document here, so those not chunked are the documents without one).
    const chunked = stopped.chunks.done + stopped.chunks.pending;
    expect(chunked).toBeLessThanOrEqual(DOCS);
    expect(stopped.documents).toEqual({ done: 0, pending: DOCS, notChunked: DOCS - chunked });
    expect(stopped.chunks.pending).toBeGreaterThan(0);
    expect(existsSync(join(ws, LOCK))).toBe(false);
    expect(await resume(ws)).toEqual(clean);
  }

  async function twoSigterms(): Promise<void> {
    const ws = join(root, "ws-twice");
    const result = await interruptedChild(ws, async (child) => {
      child.process.kill("SIGTERM");
      // Two signals sent back to back arrive as one: the second goes once the first was handled.
      await new Promise<void>((resolve) =>
        child.process.stderr?.on("data", (text: string) => {
          if (text.includes("stopping after the current batch")) resolve();
        }),
      );
      child.process.kill("SIGTERM");
    });
    expect(result.signal, result.stderr).toBeNull();
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain("kgrag: SIGTERM: quitting now");
    expect(existsSync(join(ws, LOCK))).toBe(false);
    expect(await resume(ws)).toEqual(clean);
  }

  it("real signals to child processes: one SIGINT stops with a report (130), a second SIGTERM quits at once (130); no lock, resumable", async () => {
    // Side by side: each child spends most of its time starting up.
    await Promise.all([oneSigint(), twoSigterms()]);
  });

  it("library: index(paths, { signal }) rejects with how far it got, and the next call resumes", async () => {
    const ws = join(root, "ws-library");
    const controller = new AbortController();
    let extracted = 0;
    const progress = {
      ...silentProgress,
      advance(step: string) {
        if (step === "extract" && ++extracted === 4) controller.abort(new Error("enough"));
      },
    };
    const kgrag = await createKgrag({ env, config: { workspace: ws }, progress });
    try {
      const stopped = await kgrag.index([folder], { signal: controller.signal }).catch((error) => error);
      expect(stopped).toBeInstanceOf(IndexInterruptedError);
      const { documents, chunks } = (stopped as IndexInterruptedError).progress;
      expect(documents).toEqual({ done: 0, pending: DOCS, notChunked: 0 });
      // The chunks extracted before the stop were merged (the batch in hand is committed).
      expect(chunks.done).toBeGreaterThanOrEqual(4);
      expect(chunks.done + chunks.pending).toBe(DOCS);
      expect(chunks.pending).toBeGreaterThan(0);
      // Stopped documents are left to resume, not failed.
      const statuses = (await kgrag.status()).documents.map((d) => d.status);
      expect(statuses.filter((s) => s === "failed")).toEqual([]);
      expect(existsSync(join(ws, LOCK))).toBe(false);

      const resumed = await kgrag.index([folder]);
      expect(resumed.resumed).toHaveLength(DOCS);
    } finally {
      await kgrag.close();
    }
    expect(await workspaceSnapshot(ws)).toEqual(clean);
  });
});
