import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createKgrag } from "../../src/kgrag.js";
import { QUERY_MODES } from "../../src/query/options.js";
import type { QueryResult } from "../../src/query/result.js";
import { QueryPool } from "../../src/server/queries/query-pool.js";
import { queriesNeedNoModel } from "../../src/server/queries/workspace-queries.js";
import {
  ATLAS_DOCS,
  offlineWorkspace,
  type Running,
  readEvents,
  removeAll,
  startServer,
  tempDir,
} from "../support/server.js";

const dirs: string[] = [];
let onWorkers: Running;
let onLoop: Running;

beforeAll(async () => {
  const dir = await tempDir("query-workers");
  dirs.push(dir);
  await offlineWorkspace(dir, ATLAS_DOCS);
  onWorkers = await startServer({ workspaces: [dir], server: { queryWorkers: 2 } });
  onLoop = await startServer({ workspaces: [dir], server: { queryWorkers: 0 } });
}, 60_000);

afterAll(async () => {
  await onWorkers?.stop();
  await onLoop?.stop();
  await removeAll(dirs);
});

const query = async (running: Running, body: Record<string, unknown>) => {
  const response = await fetch(`${running.url}/api/v1/query`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("application/json");
  const { timings: _timings, ...rest } = (await response.json()) as QueryResult;
  return rest;
};

describe("kgrag serve: offline queries in query processes", () => {
  it("answers exactly as the request loop does, in every mode", async () => {
    for (const mode of ["naive", "local", "global", "hybrid", "mix"]) {
      const body = { question: "Who founded Lumen Robotics, and where?", mode };
      expect(await query(onWorkers, body)).toEqual(await query(onLoop, body));
    }
    const scoped = { question: "Where is the university?", docIds: ["porto"], contextOnly: true };
    expect(await query(onWorkers, scoped)).toEqual(await query(onLoop, scoped));
  });

  it("runs them off the request loop: the server's own store is not searched", async () => {
    const store = (running: Running) => running.server.context.registry.all[0]!.kgrag.services.store;
    const workersStore = vi.spyOn(store(onWorkers), "searchChunkText");
    const loopStore = vi.spyOn(store(onLoop), "searchChunkText");
    const body = { question: "Who founded Lumen Robotics?", mode: "naive" };
    await Promise.all([query(onWorkers, body), query(onLoop, body)]);
    expect(workersStore).not.toHaveBeenCalled();
    expect(loopStore).toHaveBeenCalled();
    vi.restoreAllMocks();
  });

  it("answers many concurrent queries, each with its own result", async () => {
    const questions = [
      "Who founded Lumen Robotics?",
      "Where is the University of Porto?",
      "What does Lumen Robotics build?",
    ];
    const alone = await Promise.all(questions.map((question) => query(onLoop, { question })));
    const together = await Promise.all(
      Array.from({ length: 24 }, (_, i) => query(onWorkers, { question: questions[i % 3] })),
    );
    expect(together).toEqual(together.map((_, i) => alone[i % 3]));
  });

  it("streams the context and the answer from a worker", async () => {
    const response = await fetch(`${onWorkers.url}/api/v1/query/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ question: "Who founded Lumen Robotics?", mode: "local" }),
    });
    const events = await readEvents(response);
    expect(events.map((e) => e.event)).toEqual(["context", "token", "done"]);
    const [context, token, end] = events.map((e) => e.data) as [
      { context: { references: unknown } },
      { text: string },
      QueryResult,
    ];
    const done = end;
    expect(context.context.references).toEqual(done.references);
    expect(token.text).toBe(done.answer);
    expect(done.answer).toContain("Mara Okafor");
  });

  it("warms each workspace in every mode before its first query, when asked", async () => {
    const warm = new QueryPool(2, { env: {}, workspaces: [dirs[0]!], warmUp: true });
    const cold = new QueryPool(1, { env: {}, workspaces: [dirs[0]!], warmUp: false });
    try {
      const everyMode = [{ workspace: dirs[0]!, modes: [...QUERY_MODES] }];
      expect(await warm.ready()).toEqual([everyMode, everyMode]);
      expect(await cold.ready()).toEqual([[]]);
      const body = { question: "Who founded Lumen Robotics, and where?", mode: "mix" } as const;
      const result = await warm.run(dirs[0]!, body.question, { mode: body.mode });
      const { timings: _t, ...answered } = JSON.parse(result.toString()) as QueryResult;
      expect(answered).toEqual(await query(onLoop, body));
    } finally {
      await warm.close();
      await cold.close();
    }
  });

  it("fails a query whose workspace a worker cannot open, and keeps answering the others", async () => {
    const notAFolder = join(dirs[0]!, "kgrag.sqlite");
    const pool = new QueryPool(1, { env: {}, workspaces: [] });
    try {
      await expect(pool.run(notAFolder, "Who founded Lumen Robotics?", {})).rejects.toThrow();
      const result = JSON.parse(
        (await pool.run(dirs[0]!, "Who founded Lumen Robotics?", { mode: "local" })).toString(),
      ) as QueryResult;
      expect(result.answer).toContain("Mara Okafor");
    } finally {
      await pool.close();
    }
    await expect(pool.run(dirs[0]!, "Who?", {})).rejects.toThrow(/closed/);
  });
});

describe("the query pool's choice of process", () => {
  it("sends a question asked again to the process that answered it, unless that one is busier", async () => {
    const pool = new QueryPool(2, { env: { ...process.env }, workspaces: [dirs[0] as string] });
    try {
      await pool.ready();
      const ask = (question: string, mode: string) =>
        pool.run(dirs[0] as string, question, {
          mode: mode as (typeof QUERY_MODES)[number],
          contextOnly: true,
        });
      // Two at once: the second question goes to the second process (the first has one in hand).
      await Promise.all([
        ask("Where is the University of Porto?", "mix"),
        ask("Who founded Lumen Robotics?", "mix"),
      ]);
      expect(pool.sentPerProcess).toEqual([1, 1]);
      // One after another, when either process is free: every mode of it on the second process.
      for (const mode of QUERY_MODES) await ask("Who founded Lumen Robotics?", mode);
      expect(pool.sentPerProcess).toEqual([1, 1 + QUERY_MODES.length]);
      // Many at once: the load is shared all the same.
      await Promise.all(Array.from({ length: 20 }, () => ask("Who founded Lumen Robotics?", "mix")));
      const [zero, one] = pool.sentPerProcess as [number, number];
      expect(zero - 1).toBeGreaterThanOrEqual(9);
      expect(one - 1 - QUERY_MODES.length).toBeGreaterThanOrEqual(9);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it("remembers a long question's process too (by a digest of it): asked again, it goes back there", async () => {
    const workspace = dirs[0] as string;
    const pool = new QueryPool(2, { env: { ...process.env }, workspaces: [workspace] });
    try {
      await pool.ready();
      const long = `Who founded Lumen Robotics? ${"Tell me about its founders and their work. ".repeat(20)}`;
      expect(long.length).toBeGreaterThan(512);
      const ask = (question: string) => pool.run(workspace, question, { mode: "mix", contextOnly: true });
      await Promise.all([ask("Where is the University of Porto?"), ask(long)]);
      expect(pool.sentPerProcess).toEqual([1, 1]);
      for (let i = 0; i < 3; i++) await ask(long);
      expect(pool.sentPerProcess).toEqual([1, 4]);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it("keeps a question on its process while that one holds at most the slack beyond the least busy", async () => {
    const workspace = dirs[0] as string;
    const pool = new QueryPool(
      2,
      { env: { ...process.env }, workspaces: [workspace] },
      { cancelGraceMs: 2_000, affinitySlack: 2 },
    );
    try {
      await pool.ready();
      const ask = (question: string) => pool.run(workspace, question, { mode: "mix", contextOnly: true });
      await Promise.all([ask("Where is the University of Porto?"), ask("Who founded Lumen Robotics?")]);
      expect(pool.sentPerProcess).toEqual([1, 1]);
      // Four at once: the first three stay on the first process (0, 1, then 2 in hand against
      // none), the fourth would make it 3 beyond the idle second process, which takes it.
      await Promise.all(Array.from({ length: 4 }, () => ask("Where is the University of Porto?")));
      expect(pool.sentPerProcess).toEqual([4, 2]);
    } finally {
      await pool.close();
    }
  }, 60_000);
});

describe("a query process killed for a cancelled query it did not stop", () => {
  it("is replaced at once: a query asked before the killed one has exited goes to its successor", async () => {
    const workspace = dirs[0] as string;
    const grace = 1_000;
    const pool = new QueryPool(1, { env: {}, workspaces: [workspace] }, { cancelGraceMs: grace });
    try {
      await pool.ready();
      const [stuck] = pool.processIds as [number];
      // As stuck as a process deep in synchronous work: it hears no cancel.
      process.kill(stuck, "SIGSTOP");
      // The grace period's timer only, so the test runs between the kill and the process's exit.
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
      const client = new AbortController();
      const leaving = pool.run(workspace, "Who studied in Porto?", {}, {}, client.signal);
      client.abort(new Error("the client left"));
      await expect(leaving).rejects.toThrow("the client left");
      vi.advanceTimersByTime(grace);
      expect(pool.killedProcesses).toBe(1);

      const next = pool.run(workspace, "Who founded Lumen Robotics?", { mode: "local" });
      // Sent to the new process, not written to the one being killed.
      expect(pool.processIds).not.toContain(stuck);
      expect(pool.sentPerProcess).toEqual([1]);
      vi.useRealTimers();
      expect((JSON.parse((await next).toString()) as QueryResult).answer).toContain("Mara Okafor");
    } finally {
      vi.useRealTimers();
      await pool.close();
    }
  }, 60_000);
});

describe("which workspaces' queries may run on workers", () => {
  it("those that call no model; a configured chat model keeps them on the request loop", async () => {
    const dir = await tempDir("query-workers-model");
    dirs.push(dir);
    const offline = await createKgrag({ env: {}, config: { workspace: dir } });
    expect(queriesNeedNoModel(offline)).toBe(true);
    await offline.close();
    const withModel = await createKgrag({
      env: { KGRAG_LLM_BASE_URL: "http://127.0.0.1:9/v1", KGRAG_LLM_API_KEY: "k", KGRAG_LLM_MODEL: "m" },
      config: { workspace: dir },
    });
    expect(queriesNeedNoModel(withModel)).toBe(false);
    await withModel.close();
  });
});
