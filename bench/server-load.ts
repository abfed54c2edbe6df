/**
 * `kgrag serve` under load, offline, on the HotpotQA-100 workspace (994 passages):
 *  1. 50 concurrent clients POST /api/v1/query (mix, context only) for 30 s: p50/p95/p99, errors;
 *     target p95 <= 150 ms and no errors.
 *  2. GET /api/v1/graph/neighbourhood at depth 2 with maxNodes 500 around the most connected
 *     entities: target p95 <= 50 ms.
 *  3. Query p95 (one client, mix, context only) idle, then while a job indexes 994 new passages
 *     (HotpotQA with altered names) into the same workspace: target within 2x of idle.
 * The base workspace is indexed once under the temp folder and reused; every run serves a copy.
 * The server's per-client rate limit is lifted (all clients share one address); the load average
 * is printed beside the figures, since the machine may be shared.
 * Run: npx tsx bench/server-load.ts [--clients 50] [--seconds 30] [--query-workers N] [--fresh]
 *        [--skip-index-job] [--data DIR]
 */
import { existsSync, readFileSync } from "node:fs";
import { cp, mkdir, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createKgrag } from "../src/kgrag.js";
import { createServer } from "../src/server/app.js";
import type { Job } from "../src/server/jobs/job-types.js";
import { alter, HOTPOTQA, percentile } from "./support/haystack.js";

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) =>
  args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;
const CLIENTS = flag("--clients", 50);
const SECONDS = flag("--seconds", 30);
/** Query worker threads of the server; the server's default when not given. */
const QUERY_WORKERS = args.includes("--query-workers") ? flag("--query-workers", 1) : undefined;
const ROOT = join(tmpdir(), "kgrag-bench-server");

/** The dataset beside the repository (a worktree sits one folder deeper than the main checkout). */
function dataset(): string {
  const given = args.includes("--data") ? [args[args.indexOf("--data") + 1] ?? ""] : [];
  const candidates = [...given, HOTPOTQA, join(import.meta.dirname, "../../../shared/datasets/hotpotqa-100")];
  const found = candidates.find((dir) => existsSync(join(dir, "corpus.jsonl")));
  if (!found) throw new Error(`HotpotQA-100 not found in ${candidates.join(" or ")}`);
  return found;
}

/** The 100 development questions. */
function questionsOf(data: string): string[] {
  return readFileSync(join(data, "questions.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { question: string }).question);
}

interface Stats {
  count: number;
  errors: number;
  p50: number;
  p95: number;
  p99: number;
  perSecond: number;
}

function stats(times: number[], errors: number, seconds: number): Stats {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p: number) => Math.round(percentile(sorted, p) * 10) / 10;
  return {
    count: times.length,
    errors,
    p50: at(50),
    p95: at(95),
    p99: at(99),
    perSecond: Math.round(times.length / seconds),
  };
}

async function baseWorkspace(data: string): Promise<string> {
  const dir = join(ROOT, "base");
  if (args.includes("--fresh")) await rm(dir, { recursive: true, force: true });
  if (existsSync(join(dir, "kgrag.sqlite"))) return dir;
  await mkdir(dir, { recursive: true });
  const kgrag = await createKgrag({ env: {}, config: { workspace: dir } });
  try {
    const t0 = performance.now();
    const s = await kgrag.index([join(data, "corpus.jsonl")]);
    console.log(
      `indexed base workspace: ${s.chunks} chunks, ${s.entities} entities in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
  } finally {
    await kgrag.close();
  }
  return dir;
}

async function timedQuery(url: string, question: string): Promise<number> {
  const t0 = performance.now();
  const response = await fetch(`${url}/api/v1/query`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ question, mode: "mix", contextOnly: true }),
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`status ${response.status}`);
  return performance.now() - t0;
}

/** `clients` loops asking the questions round-robin until `until()` says stop. */
async function queryLoad(url: string, questions: string[], clients: number, until: () => boolean) {
  const times: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (!until()) {
        const question = questions[next++ % questions.length] as string;
        try {
          times.push(await timedQuery(url, question));
        } catch {
          errors += 1;
        }
      }
    }),
  );
  return stats(times, errors, (performance.now() - started) / 1000);
}

async function neighbourhoods(url: string): Promise<Stats & { nodes: number; edges: number }> {
  const popular = (await (await fetch(`${url}/api/v1/graph/entities/popular?limit=50`)).json()) as {
    items: { name: string }[];
  };
  const names = popular.items.map((i) => i.name);
  for (const name of names.slice(0, 5)) await neighbourhood(url, name); // warm-up
  const times: number[] = [];
  let nodes = 0;
  let edges = 0;
  const started = performance.now();
  for (let round = 0; round < 4; round++) {
    for (const name of names) {
      const t0 = performance.now();
      const body = await neighbourhood(url, name);
      times.push(performance.now() - t0);
      nodes += body.nodes.length;
      edges += body.edges.length;
    }
  }
  return {
    ...stats(times, 0, (performance.now() - started) / 1000),
    nodes: Math.round(nodes / times.length),
    edges: Math.round(edges / times.length),
  };
}

async function neighbourhood(url: string, name: string) {
  const response = await fetch(
    `${url}/api/v1/graph/neighbourhood?name=${encodeURIComponent(name)}&depth=2&maxNodes=500&maxEdges=2000`,
  );
  return (await response.json()) as { nodes: unknown[]; edges: unknown[] };
}

/** HotpotQA with every capitalised word altered: 994 new passages with their own entities. */
function alteredCorpus(data: string) {
  return readFileSync(join(data, "corpus.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const p = JSON.parse(line) as { id: string; title: string; text: string };
      return { id: `${p.id}-new`, title: alter(p.title, 2), text: alter(p.text, 2) };
    });
}

async function duringIndexJob(url: string, data: string, questions: string[]) {
  const submitted = await fetch(`${url}/api/v1/documents/texts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ documents: alteredCorpus(data) }),
  });
  const { job } = (await submitted.json()) as { job: Job };
  let current = job;
  const poll = setInterval(async () => {
    current = (await (await fetch(`${url}/api/v1/jobs/${job.id}`)).json()) as Job;
  }, 500);
  const t0 = performance.now();
  // Measured while the job works (not while its process starts up).
  while (current.stage === "queued" || current.stage === "starting")
    await new Promise((r) => setTimeout(r, 100));
  const during = await queryLoad(url, questions, 1, () => current.status !== "running");
  clearInterval(poll);
  const final = (await (await fetch(`${url}/api/v1/jobs/${job.id}`)).json()) as Job;
  return { during, job: final, jobSeconds: (performance.now() - t0) / 1000 };
}

function loadAverage(): string {
  return loadavg()
    .map((n) => n.toFixed(2))
    .join(", ");
}

async function main(): Promise<void> {
  const data = dataset();
  const base = await baseWorkspace(data);
  const served = join(ROOT, "served");
  await rm(served, { recursive: true, force: true });
  await cp(base, served, { recursive: true, filter: (src) => !src.includes(`${join(base, "server")}`) });
  const server = await createServer({
    workspaces: [served],
    env: { PATH: process.env.PATH },
    server: {
      port: 0,
      rateLimitPerMinute: 1_000_000_000,
      ...(QUERY_WORKERS === undefined ? {} : { queryWorkers: QUERY_WORKERS }),
    },
  });
  const url = await server.listen();
  console.log(
    `query workers: ${server.context.config.queryWorkers}; load average at start: ${loadAverage()}`,
  );
  try {
    const questions = questionsOf(data);
    await queryLoad(
      url,
      questions.slice(0, 20),
      4,
      (() => {
        let n = 0;
        return () => n++ >= 40;
      })(),
    );
    const end = performance.now() + SECONDS * 1000;
    const load = await queryLoad(url, questions, CLIENTS, () => performance.now() > end);
    console.log(`query, ${CLIENTS} clients, ${SECONDS} s, mix context-only (load ${loadAverage()}):`, load);
    const around = await neighbourhoods(url);
    console.log(`neighbourhood depth 2, maxNodes 500 (load ${loadAverage()}):`, around);
    if (args.includes("--skip-index-job")) return;
    const idleEnd = performance.now() + 20_000;
    const idle = await queryLoad(url, questions, 1, () => performance.now() > idleEnd);
    const { during, job, jobSeconds } = await duringIndexJob(url, data, questions);
    console.log("query, 1 client, idle:", idle);
    console.log(
      `query, 1 client, during the index job (${jobSeconds.toFixed(0)} s, ${job.status}, ${job.message}):`,
      during,
    );
    console.log(`p95 during / idle: ${(during.p95 / idle.p95).toFixed(2)}x (load ${loadAverage()})`);
  } finally {
    await server.close();
  }
}

await main();
