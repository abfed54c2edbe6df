import { existsSync, readdirSync, readFileSync } from "node:fs";
import { getPriority } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../src/server/jobs/job-types.js";
import { requestKey } from "../../src/server/queries/query-cache.js";
import { defaultQueryWorkers, serverConfigFrom } from "../../src/server/server-config.js";
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
let cached: Running;
let uncached: Running;

beforeAll(async () => {
  const [one, two] = [await tempDir("query-cache"), await tempDir("query-cache-off")];
  dirs.push(one, two);
  await offlineWorkspace(one, ATLAS_DOCS);
  await offlineWorkspace(two, ATLAS_DOCS);
  cached = await startServer({ workspaces: [one], server: { queryWorkers: 1, jobNice: 7 } });
  uncached = await startServer({ workspaces: [two], server: { queryCache: { maxEntries: 0 } } });
}, 60_000);

afterAll(async () => {
  await cached?.stop();
  await uncached?.stop();
  await removeAll(dirs);
});

async function query(running: Running, body: Record<string, unknown>) {
  const response = await fetch(`${running.url}/api/v1/query`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return { cache: response.headers.get("x-kgrag-cache"), text: await response.text() };
}

async function finished(running: Running, response: Response): Promise<Job> {
  expect(response.status).toBe(202);
  const { job } = (await response.json()) as { job: Job };
  const events = await readEvents(await fetch(`${running.url}/api/v1/jobs/${job.id}/events`));
  return events.at(-1)?.data as Job;
}

const founders = { question: "Who founded Lumen Robotics?", mode: "local", contextOnly: true };

describe("kgrag serve: the query cache", () => {
  it("answers a repeated request from the cache with the same JSON, whatever the option order", async () => {
    const first = await query(cached, founders);
    expect(first.cache).toBe("miss");
    const again = await query(cached, { contextOnly: true, mode: "local", question: founders.question });
    expect(again).toEqual({ cache: "hit", text: first.text });
    expect((await query(cached, { ...founders, mode: "naive" })).cache).toBe("miss");
    expect((await query(cached, { ...founders, topK: 7 })).cache).toBe("miss");
  });

  it("shares the work of identical requests in flight", async () => {
    const body = { question: "Where did Mara Okafor study?", contextOnly: true };
    const answers = await Promise.all(Array.from({ length: 5 }, () => query(cached, body)));
    expect(answers.filter((a) => a.cache === "miss")).toHaveLength(1);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
  });

  it("forgets every result when a curation route writes", async () => {
    await query(cached, founders);
    const renamed = await fetch(`${cached.url}/api/v1/entities/rename`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ entity: "Mara Okafor", name: "Mara Okafor-Reis" }),
    });
    expect(renamed.status).toBe(200);
    const after = await query(cached, founders);
    expect(after.cache).toBe("miss");
    expect(after.text).toContain("Mara Okafor-Reis");
  });

  it("forgets every result when an index job writes, from its own process", async () => {
    const question = { question: "Who works at Lumen Robotics?", contextOnly: true };
    expect((await query(cached, question)).text).not.toContain("Teodor Vance");
    const job = await finished(
      cached,
      await fetch(`${cached.url}/api/v1/documents/texts`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          documents: [
            { id: "vance", title: "Teodor Vance", text: "Teodor Vance works at Lumen Robotics in Lisbon." },
          ],
        }),
      }),
    );
    expect(job.status).toBe("done");
    const after = await query(cached, question);
    expect(after.cache).toBe("miss");
    expect(after.text).toContain("Teodor Vance");
  }, 60_000);

  it("runs the job process at the configured lower priority", () => {
    if (!existsSync("/proc/self/stat")) return; // Linux: the job process found through /proc
    const jobProcesses = readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
          const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
          return (
            parent === process.pid && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("job-process")
          );
        } catch {
          return false;
        }
      });
    expect(jobProcesses).toHaveLength(1);
    expect(getPriority(Number(jobProcesses[0]))).toBe(Math.min(19, getPriority() + 7));
  });

  it("is off with maxEntries 0", async () => {
    expect((await query(uncached, founders)).cache).toBe("miss");
    expect((await query(uncached, founders)).cache).toBe("miss");
  });
});

describe("query cache and job priority settings", () => {
  it("keys requests on their content, not their key order", () => {
    expect(requestKey("q", { mode: "mix", topK: 3 })).toBe(requestKey("q", { topK: 3, mode: "mix" }));
    expect(requestKey("q", { mode: "mix" })).not.toBe(requestKey("q", { mode: "local" }));
    expect(requestKey("q", { docIds: ["a", "b"] })).not.toBe(requestKey("q", { docIds: ["b", "a"] }));
  });

  it("starts two query processes from two cores on, else one per core but one", () => {
    expect([1, 2, 3, 4, 8].map(defaultQueryWorkers)).toEqual([1, 2, 2, 3, 7]);
    expect(serverConfigFrom({}, { KGRAG_QUERY_WORKERS: "1" }).queryWorkers).toBe(1);
  });

  it("reads KGRAG_QUERY_CACHE and KGRAG_JOB_NICE, and refuses values out of range", () => {
    const config = serverConfigFrom({}, { KGRAG_QUERY_CACHE: "0", KGRAG_JOB_NICE: "3" });
    expect(config.queryCache.maxEntries).toBe(0);
    expect(config.jobNice).toBe(3);
    expect(serverConfigFrom({}, {}).jobNice).toBe(10);
    expect(() => serverConfigFrom({ jobNice: 20 }, {})).toThrow(/jobNice/);
    expect(() => serverConfigFrom({}, { KGRAG_JOB_NICE: "-1" })).toThrow(/jobNice/);
    expect(() => serverConfigFrom({}, { KGRAG_QUERY_CACHE: "many" })).toThrow(/KGRAG_QUERY_CACHE/);
    expect(() => serverConfigFrom({ queryCache: { maxEntries: -1 } }, {})).toThrow(/queryCache/);
  });
});
