import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { QueryResult } from "../../src/query/result.js";
import type { QueryPool } from "../../src/server/queries/query-pool.js";
import { childEnv } from "../support/cli-child.js";
import {
  type ChatCall,
  lastUserMessage,
  type ScriptedServer,
  scriptByStage,
  startScriptedOpenAI,
} from "../support/scripted-openai-server.js";
import {
  ATLAS_DOCS,
  offlineWorkspace,
  type Running,
  readEvents,
  removeAll,
  startServer,
  tempDir,
} from "../support/server.js";

/** A question holding this gets an answer call that never ends (headers, a first delta, silence). */
const STALL = "(stall)";
const ANSWER = "Mara Okafor founded Lumen Robotics [1].";
/** How long the pooled server's query process gets to stop a cancelled query before it is killed. */
const GRACE_MS = 250;
/** How long a test waits for the pool to get somewhere: generous, for a busy machine. */
const WAIT = { timeout: 10_000 };

const dirs: string[] = [];
let pooled: Running;
let withModel: Running;
let model: ScriptedServer;

beforeAll(async () => {
  const [offline, modelled] = [await tempDir("query-timeout"), await tempDir("query-timeout-llm")];
  dirs.push(offline, modelled);
  await offlineWorkspace(offline, ATLAS_DOCS);
  await offlineWorkspace(modelled, ATLAS_DOCS);
  // One query process, so every query of a test goes to the one it stops.
  pooled = await startServer({
    workspaces: [offline],
    server: { queryWorkers: 1, warmQueryWorkers: false, queryCancelGraceMs: GRACE_MS },
  });
  model = await startScriptedOpenAI({
    chat: scriptByStage({
      answer: (call: ChatCall) =>
        lastUserMessage(call).includes(STALL) ? { stall: true } : { content: ANSWER },
    }),
  });
  withModel = await startServer({
    workspaces: [modelled],
    env: childEnv({ KGRAG_LLM_BASE_URL: model.baseURL, KGRAG_LLM_API_KEY: "k", KGRAG_LLM_MODEL: "scripted" }),
  });
}, 60_000);

afterEach(() => {
  // A test that failed half-way must not leave a query process stopped for the next one.
  for (const pid of poolOf(pooled).processIds) if (pid !== undefined) continueProcess(pid);
});

afterAll(async () => {
  await pooled?.stop();
  await withModel?.stop();
  await model?.close();
  await removeAll(dirs);
});

const poolOf = (running: Running): QueryPool => {
  const pool = running.server.context.registry.queryPool;
  if (!pool) throw new Error("the server has no query processes");
  return pool;
};

function continueProcess(pid: number): void {
  try {
    process.kill(pid, "SIGCONT");
  } catch {
    // Already gone.
  }
}

/**
 * Stops (SIGSTOP) the pool's one query process once it has opened the workspace: from then on it
 * is as stuck as a process deep in synchronous work, hearing no message, cancels included.
 */
async function stopTheQueryProcess(pool: QueryPool): Promise<number> {
  await pool.ready();
  const [pid] = pool.processIds;
  if (pid === undefined) throw new Error("no query process");
  process.kill(pid, "SIGSTOP");
  return pid;
}

const post = (running: Running, path: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${running.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });

/** Reads the response until its text holds `marker`, then leaves it open. */
async function readUntil(response: Response, marker: string): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) throw new Error("no body");
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes(marker)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the response ended without ${marker}: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

/** The answer calls the scripted model received for `question`, and whether each has closed. */
const answerCallsFor = (question: string) =>
  model.requests
    .filter((r) => r.stage === "answer" && JSON.stringify(r.body).includes(question))
    .map((r) => ({ closed: r.answeredAt !== undefined }));

describe("kgrag serve: a query's time limit", () => {
  it("answers 504 query_timeout past it, aborting the model call, then answers the next query", async () => {
    const question = `Who founded Lumen Robotics? ${STALL}`;
    const response = await post(withModel, "/api/v1/query", { question, mode: "naive", timeoutMs: 300 });
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({
      error: { code: "query_timeout", message: expect.stringContaining("300 ms") },
    });
    await vi.waitFor(() => expect(answerCallsFor(question)).toEqual([{ closed: true }]), WAIT);

    const next = await post(withModel, "/api/v1/query", {
      question: "Who founded Lumen Robotics?",
      mode: "naive",
    });
    expect(next.status).toBe(200);
    expect(((await next.json()) as QueryResult).answer).toBe(ANSWER);
  });

  it("answers 504 for a query stuck in a query process, kills that process, and the next query is answered", async () => {
    const pool = poolOf(pooled);
    const stuck = await stopTheQueryProcess(pool);
    const killed = pool.killedProcesses;
    const response = await post(pooled, "/api/v1/query", {
      question: "Who founded Lumen Robotics?",
      mode: "naive",
      timeoutMs: 300,
    });
    expect(response.status).toBe(504);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("query_timeout");
    // Killed, then replaced once it has exited.
    await vi.waitFor(() => expect(pool.processIds).not.toContain(stuck), WAIT);
    expect(pool.killedProcesses).toBe(killed + 1);

    const next = await post(pooled, "/api/v1/query", {
      question: "Who founded Lumen Robotics?",
      mode: "local",
    });
    expect(next.status).toBe(200);
    expect(((await next.json()) as QueryResult).answer).toContain("Mara Okafor");
  });
});

describe("kgrag serve: a query whose client went away", () => {
  it("is cancelled when a stream's client disconnects mid-way: its model call is aborted", async () => {
    const question = `Where is the University of Porto? ${STALL}`;
    const client = new AbortController();
    const response = await post(
      withModel,
      "/api/v1/query/stream",
      { question, mode: "naive" },
      client.signal,
    );
    // The context, then the model's first delta; the rest never comes.
    await readUntil(response, "event: token");
    expect(answerCallsFor(question)).toEqual([{ closed: false }]);
    client.abort();
    await vi.waitFor(() => expect(answerCallsFor(question)).toEqual([{ closed: true }]), WAIT);
  });

  it("is cancelled when an Ollama chat client disconnects mid-way", async () => {
    const question = `What does Lumen Robotics build? ${STALL}`;
    const client = new AbortController();
    const response = await post(
      withModel,
      "/api/chat",
      { model: "kgrag:latest", messages: [{ role: "user", content: `/naive ${question}` }] },
      client.signal,
    );
    await readUntil(response, '"done":false');
    expect(answerCallsFor(question)).toEqual([{ closed: false }]);
    client.abort();
    await vi.waitFor(() => expect(answerCallsFor(question)).toEqual([{ closed: true }]), WAIT);
  });

  it("in a stuck query process, is cancelled; the process is replaced and the queries queued behind it are answered", async () => {
    const pool = poolOf(pooled);
    const stuck = await stopTheQueryProcess(pool);
    const [sent] = pool.sentPerProcess as [number];
    const [cancelled, killed] = [pool.cancelledQueries, pool.killedProcesses];
    const client = new AbortController();
    const leaving = post(
      pooled,
      "/api/v1/query/stream",
      { question: "Who studied in Porto?" },
      client.signal,
    );
    await vi.waitFor(() => expect(pool.sentPerProcess).toEqual([sent + 1]), WAIT);
    const queuedJson = post(pooled, "/api/v1/query", { question: "Where is the University of Porto?" });
    const queuedStream = post(pooled, "/api/v1/query/stream", {
      question: "What does Lumen Robotics build?",
    });
    await vi.waitFor(() => expect(pool.sentPerProcess).toEqual([sent + 3]), WAIT);

    client.abort();
    await expect(leaving).rejects.toThrow();
    await vi.waitFor(() => expect(pool.cancelledQueries).toBe(cancelled + 1), WAIT);
    // Killed, then replaced once it has exited.
    await vi.waitFor(() => expect(pool.processIds).not.toContain(stuck), WAIT);
    expect(pool.killedProcesses).toBe(killed + 1);

    const json = await queuedJson;
    expect(json.status).toBe(200);
    expect(((await json.json()) as QueryResult).answer).toContain("Porto");
    const events = await readEvents(await queuedStream);
    expect(events.map((e) => e.event)).toEqual(["context", "token", "done"]);
    const [, , done] = events.map((e) => e.data) as [unknown, unknown, QueryResult];
    expect(done.answer).toContain("warehouse robots");
    // Only the query whose client left was cancelled.
    expect(pool.cancelledQueries).toBe(cancelled + 1);
  });

  it("waiting its turn, is dropped without costing the process the query it is answering", async () => {
    const pool = poolOf(pooled);
    const stopped = await stopTheQueryProcess(pool);
    const [sent] = pool.sentPerProcess as [number];
    const [cancelled, killed] = [pool.cancelledQueries, pool.killedProcesses];
    const answering = post(pooled, "/api/v1/query", {
      question: "Who founded Lumen Robotics?",
      mode: "hybrid",
    });
    await vi.waitFor(() => expect(pool.sentPerProcess).toEqual([sent + 1]), WAIT);
    const client = new AbortController();
    const leaving = post(
      pooled,
      "/api/v1/query",
      { question: "Where was Mara Okafor trained?" },
      client.signal,
    );
    await vi.waitFor(() => expect(pool.sentPerProcess).toEqual([sent + 2]), WAIT);
    client.abort();
    await expect(leaving).rejects.toThrow();
    await vi.waitFor(() => expect(pool.cancelledQueries).toBe(cancelled + 1), WAIT);
    // Past the grace period the process is still there: it was never answering the cancelled query.
    await new Promise((resolve) => setTimeout(resolve, 3 * GRACE_MS));
    expect(pool.killedProcesses).toBe(killed);

    continueProcess(stopped);
    const answered = await answering;
    expect(answered.status).toBe(200);
    expect(((await answered.json()) as QueryResult).answer).toContain("Mara Okafor");
    const next = await post(pooled, "/api/v1/query", {
      question: "What does Lumen Robotics build?",
      mode: "naive",
    });
    expect(next.status).toBe(200);
    expect(pool.processIds).toEqual([stopped]);
    expect(pool.killedProcesses).toBe(killed);
  });

  it("shared by identical requests, is cancelled only once all of their callers left", async () => {
    const pool = poolOf(pooled);
    await stopTheQueryProcess(pool);
    const queries = pooled.server.context.registry.all[0]?.queries;
    if (!queries) throw new Error("no workspace");
    const [sent] = pool.sentPerProcess as [number];
    const cancelled = pool.cancelledQueries;
    const [first, second] = [new AbortController(), new AbortController()];
    const options = { mode: "hybrid" as const };
    const one = queries.json("Who is Mara Okafor?", options, { clientGone: first.signal });
    const two = queries.json("Who is Mara Okafor?", options, { clientGone: second.signal });
    // The second request shares the first one's work: one query sent.
    expect(pool.sentPerProcess).toEqual([sent + 1]);

    first.abort(new Error("first caller left"));
    await expect(one).rejects.toThrow("first caller left");
    expect(pool.cancelledQueries).toBe(cancelled);
    second.abort(new Error("second caller left"));
    await expect(two).rejects.toThrow("second caller left");
    expect(pool.cancelledQueries).toBe(cancelled + 1);
  });
});
