/**
 * `kgrag serve` under load, offline, on the HotpotQA-100 workspace (994 passages):
 *  1. 50 concurrent clients POST /api/v1/query (mix, context only) for 30 s: p50/p95/p99, errors;
 *     target p95 <= 150 ms and no errors. Every request carries its own `id`, so none is answered
 *     from the server's query cache (the hits are counted to show it); then the same load again
 *     with the 100 questions repeating, which the cache answers after their first round.
 *  2. GET /api/v1/graph/neighbourhood at depth 2 with maxNodes 500 around the most connected
 *     entities: target p95 <= 50 ms.
 *  3. Query p95 (one client, mix, context only) idle, then while a job indexes 994 new passages
 *     (HotpotQA with altered names) into the same workspace: target within 2x of idle.
 * The base workspace is indexed once under the temp folder and reused; every run serves a copy.
 * The query load's clients run in a process of their own (support/load-clients.ts), as a
 * deployment's run elsewhere: this process is the server's (its request loop), and part 2's one
 * client. The server's per-client rate limit is lifted (all clients share one address); the load
 * average is printed beside the figures, since the machine may be shared, and so is the CPU time
 * per request of this process, its children (the server's query and job processes) and the
 * clients' process, in all and apart.
 * Run: npx tsx bench/server-load.ts [--clients 50] [--seconds 30] [--query-workers N] [--fresh]
 *        [--skip-index-job] [--data DIR] [--query-cache ENTRIES] [--job-nice N] [--during-seconds 600]
 *        [--index-job-only] [--neighbourhood-only] [--neighbourhood-rounds 4] [--neighbourhood-cache ENTRIES]
 *        [--edge-pieces N] [--distinct-only] [--cpu-prof DIR] [--query-node-options "FLAGS"]
 *        [--query-affinity-slack N]
 * --distinct-only runs part 1's distinct load alone (the repeating load, the neighbourhoods and the
 * index job left out). --cpu-prof DIR writes a CPU profile of each query process into DIR when it
 * exits, from the measured load's first query on (support/cpu-profile-child.mjs).
 * --query-node-options gives the query processes NODE_OPTIONS (heap flags, say), to try them
 * before they become a setting.
 * --neighbourhood-only runs part 2 alone (no query load before it, no index job after), with no
 * query workers unless --query-workers is given: the route does not use them, and their warm-up
 * would otherwise run during the measurement, in its CPU time.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cp, mkdir, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { FastifyInstance } from "fastify";
import { createKgrag } from "../src/kgrag.js";
import { createServer } from "../src/server/app.js";
import type { Job } from "../src/server/jobs/job-types.js";
import { alter, HOTPOTQA, percentile } from "./support/haystack.js";
import { LoadClients } from "./support/load-clients.js";

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) =>
  args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;
const CLIENTS = flag("--clients", 50);
const SECONDS = flag("--seconds", 30);
/** Query worker threads of the server; the server's default when not given. */
const QUERY_WORKERS = args.includes("--query-workers") ? flag("--query-workers", 1) : undefined;
/** The server's query cache size (0 turns it off) and the job processes' niceness; defaults when not given. */
const QUERY_CACHE = args.includes("--query-cache") ? flag("--query-cache", 0) : undefined;
const JOB_NICE = args.includes("--job-nice") ? flag("--job-nice", 0) : undefined;
/** The server's queryAffinitySlack; its default when not given. */
const AFFINITY_SLACK = args.includes("--query-affinity-slack")
  ? flag("--query-affinity-slack", 0)
  : undefined;
/** The server's neighbourhood cache size (0 turns it off: every round cold); the default when not given. */
const NEIGHBOURHOOD_CACHE = args.includes("--neighbourhood-cache")
  ? flag("--neighbourhood-cache", 0)
  : undefined;
/** Relationships the server keeps serialised for reuse across neighbourhoods (0: none); the default when not given. */
const EDGE_PIECES = args.includes("--edge-pieces") ? flag("--edge-pieces", 0) : undefined;
/** How long queries are measured while the job runs (at most until it ends). */
const DURING_SECONDS = flag("--during-seconds", 600);
/** Rounds over the 50 most connected entities in part 2 (each round asks every one once). */
const NEIGHBOURHOOD_ROUNDS = flag("--neighbourhood-rounds", 4);
const ROOT = join(tmpdir(), "kgrag-bench-server");
/** Requests before the measured load (20 questions twice, 4 clients): the query processes' first queries. */
const WARM_UP_REQUESTS = 40;
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
/**
 * NODE_OPTIONS of the server's child processes (its query processes): --cpu-prof (through a
 * preloaded module: Node refuses --cpu-prof in NODE_OPTIONS) and --query-node-options.
 */
function childNodeOptions(): string | undefined {
  const profiler = join(import.meta.dirname, "support/cpu-profile-child.mjs");
  const given = [
    ...(option("--cpu-prof") ? [`--import ${profiler}`] : []),
    ...(option("--query-node-options") ? [option("--query-node-options")] : []),
  ];
  return given.length > 0 ? given.join(" ") : undefined;
}

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
  /** Answers the server's query cache gave (the x-kgrag-cache header). */
  cacheHits?: number;
  /** CPU time per answer of this process, its children and the clients' process (the query load's)... */
  cpuMsPerRequest?: number;
  /** ...of which this process's (the server's request loop; in part 2, the one client's too)... */
  cpuMsPerRequestHere?: number;
  /** ...its children's (the server's query processes, and a job's)... */
  cpuMsPerRequestChildren?: number;
  /** ...and the clients' process's (the query load; see support/load-clients.ts). */
  cpuMsPerRequestClients?: number;
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

/**
 * CPU milliseconds used so far by this process (the server's request loop) and by its live
 * children (the server's query and job processes) but the clients' process, which reports its own;
 * Linux /proc, else this process only.
 */
function cpuMs(): { own: number; children: number } {
  const own = process.cpuUsage();
  let children = 0;
  const ticksPerMs = 100 / 1000; // USER_HZ
  if (existsSync("/proc/self/stat")) {
    for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
      try {
        // Fields after the command name: state ppid ... utime (14th) stime (15th).
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (Number(fields[1]) !== process.pid || Number(pid) === loadClients?.pid) continue;
        children += (Number(fields[11]) + Number(fields[12])) / ticksPerMs;
      } catch {
        // The process ended meanwhile.
      }
    }
  }
  return { own: (own.user + own.system) / 1000, children };
}

/**
 * CPU per request since `before`: in all, and the share of this process, of its children and of
 * the clients' process (`clientsMs`, which it measured itself).
 */
function cpuPerRequest(before: { own: number; children: number }, requests: number, clientsMs: number) {
  const after = cpuMs();
  const per = (ms: number) => Math.round((ms / Math.max(1, requests)) * 10) / 10;
  const own = after.own - before.own;
  const children = after.children - before.children;
  return {
    cpuMsPerRequest: per(own + children + clientsMs),
    cpuMsPerRequestHere: per(own),
    cpuMsPerRequestChildren: per(children),
    cpuMsPerRequestClients: per(clientsMs),
  };
}

/** The load-generating clients' process (see support/load-clients.ts), started by main. */
let loadClients: LoadClients | undefined;

/** Numbers the distinct requests across the whole run, so that no two ever share an id. */
let requestNumber = 0;

/**
 * `clients` loops, in the clients' process, asking the questions round-robin until `seconds` or
 * `maxRequests` is reached or `stopWhen` (checked here every 100 ms) says stop; with `distinct`,
 * every request is a new one for the query cache.
 */
async function queryLoad(
  url: string,
  questions: string[],
  clients: number,
  limit: { seconds?: number; maxRequests?: number; stopWhen?: () => boolean },
  distinct = true,
): Promise<Stats> {
  if (!loadClients) throw new Error("the load clients are not running");
  const client = loadClients;
  const cpuBefore = cpuMs();
  const running = client.run({
    url,
    questions,
    clients,
    distinct,
    firstNumber: requestNumber,
    ...(limit.seconds === undefined ? {} : { seconds: limit.seconds }),
    ...(limit.maxRequests === undefined ? {} : { maxRequests: limit.maxRequests }),
  });
  const watch = limit.stopWhen;
  const watching = watch
    ? setInterval(() => {
        if (watch()) client.stop();
      }, 100)
    : undefined;
  const result = await running.finally(() => clearInterval(watching));
  requestNumber = result.nextNumber;
  return {
    ...stats(result.times, result.errors, result.seconds),
    cacheHits: result.hits,
    ...cpuPerRequest(cpuBefore, result.times.length, result.cpuMs),
  };
}

/**
 * CPU time of this process while the server handled each neighbourhood request (from its arrival
 * to its last byte written), summed: the server's share of cpuMsPerRequestHere, without the
 * client's reading and parsing of the answer (requests are sent one at a time, so the client is
 * idle meanwhile).
 */
const neighbourhoodServerCpu = { ms: 0 };

function timeServerHandling(app: FastifyInstance): void {
  const started = new WeakMap<object, NodeJS.CpuUsage>();
  app.addHook("onRequest", async (request) => {
    if (request.url.startsWith("/api/v1/graph/neighbourhood")) started.set(request.raw, process.cpuUsage());
  });
  app.addHook("onResponse", async (request) => {
    const since = started.get(request.raw);
    if (!since) return;
    const used = process.cpuUsage(since);
    neighbourhoodServerCpu.ms += (used.user + used.system) / 1000;
  });
}

/** Part 2's figures: latency, CPU per request (see cpuPerRequest) and the answers' mean size. */
type NeighbourhoodStats = Stats & {
  /** CPU per request while the server handled it (see timeServerHandling). */
  cpuMsPerRequestServer: number;
  nodes: number;
  edges: number;
  kilobytes: number;
};

/** What one round measured, summed, so that rounds can be merged before the figures are taken. */
interface RoundTally {
  times: number[];
  seconds: number;
  cpuOwnMs: number;
  /** Of which while the server handled the requests (see timeServerHandling). */
  cpuServerMs: number;
  cpuChildrenMs: number;
  nodes: number;
  edges: number;
  bytes: number;
}

/**
 * The 50 most connected entities' neighbourhoods, NEIGHBOURHOOD_ROUNDS times over. The warm-up
 * asks for five other entities (the 51st to 55th), so the first round asks nothing asked before:
 * with the server's neighbourhood cache on, the first round is the cold figure, the later ones warm.
 */
async function neighbourhoods(
  url: string,
): Promise<{ all: NeighbourhoodStats; firstRound: NeighbourhoodStats; laterRounds?: NeighbourhoodStats }> {
  const popular = (await (await fetch(`${url}/api/v1/graph/entities/popular?limit=55`)).json()) as {
    items: { name: string }[];
  };
  const names = popular.items.map((i) => i.name);
  for (const name of names.slice(50)) await neighbourhood(url, name); // warm-up
  const rounds: RoundTally[] = [];
  for (let round = 0; round < NEIGHBOURHOOD_ROUNDS; round++)
    rounds.push(await neighbourhoodRound(url, names.slice(0, 50)));
  return {
    all: figures(rounds),
    firstRound: figures(rounds.slice(0, 1)),
    ...(rounds.length > 1 ? { laterRounds: figures(rounds.slice(1)) } : {}),
  };
}

/** Every name's neighbourhood once, one after the other. */
async function neighbourhoodRound(url: string, names: string[]): Promise<RoundTally> {
  const tally: RoundTally = {
    times: [],
    seconds: 0,
    cpuOwnMs: 0,
    cpuServerMs: 0,
    cpuChildrenMs: 0,
    nodes: 0,
    edges: 0,
    bytes: 0,
  };
  const started = performance.now();
  const cpuBefore = cpuMs();
  const serverCpuBefore = neighbourhoodServerCpu.ms;
  for (const name of names) {
    const body = await neighbourhood(url, name);
    tally.times.push(body.ms);
    tally.nodes += body.nodes.length;
    tally.edges += body.edges.length;
    tally.bytes += body.bytes;
  }
  const cpuAfter = cpuMs();
  tally.seconds = (performance.now() - started) / 1000;
  tally.cpuOwnMs = cpuAfter.own - cpuBefore.own;
  tally.cpuServerMs = neighbourhoodServerCpu.ms - serverCpuBefore;
  tally.cpuChildrenMs = cpuAfter.children - cpuBefore.children;
  return tally;
}

/** The figures of one or more rounds taken together. */
function figures(rounds: RoundTally[]): NeighbourhoodStats {
  const sum = (of: (r: RoundTally) => number) => rounds.reduce((total, r) => total + of(r), 0);
  const times = rounds.flatMap((r) => r.times);
  const perRequest = (total: number) => Math.round((total / Math.max(1, times.length)) * 10) / 10;
  return {
    ...stats(
      times,
      0,
      sum((r) => r.seconds),
    ),
    cpuMsPerRequest: perRequest(sum((r) => r.cpuOwnMs + r.cpuChildrenMs)),
    cpuMsPerRequestHere: perRequest(sum((r) => r.cpuOwnMs)),
    cpuMsPerRequestServer: perRequest(sum((r) => r.cpuServerMs)),
    cpuMsPerRequestChildren: perRequest(sum((r) => r.cpuChildrenMs)),
    nodes: Math.round(perRequest(sum((r) => r.nodes))),
    edges: Math.round(perRequest(sum((r) => r.edges))),
    kilobytes: Math.round(perRequest(sum((r) => r.bytes)) / 1024),
  };
}

/** One neighbourhood, timed until its last byte arrived (the client's parsing left out). */
async function neighbourhood(url: string, name: string) {
  const t0 = performance.now();
  const response = await fetch(
    `${url}/api/v1/graph/neighbourhood?name=${encodeURIComponent(name)}&depth=2&maxNodes=500&maxEdges=2000`,
  );
  const text = await response.text();
  const ms = performance.now() - t0;
  return { ...(JSON.parse(text) as { nodes: unknown[]; edges: unknown[] }), bytes: text.length, ms };
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
  const windowEnd = performance.now() + DURING_SECONDS * 1000;
  const during = await queryLoad(url, questions, 1, {
    seconds: (windowEnd - performance.now()) / 1000,
    stopWhen: () => current.status !== "running",
  });
  clearInterval(poll);
  const final = (await (await fetch(`${url}/api/v1/jobs/${job.id}`)).json()) as Job;
  return { during, job: final, jobSeconds: (performance.now() - t0) / 1000 };
}

function loadAverage(): string {
  return loadavg()
    .map((n) => n.toFixed(2))
    .join(", ");
}

/** Parts 1 and 2: the query load, distinct then repeating, and the neighbourhoods. */
async function loadAndNeighbourhoods(url: string, questions: string[]): Promise<void> {
  const load = await queryLoad(url, questions, CLIENTS, { seconds: SECONDS });
  console.log(
    `query, ${CLIENTS} clients, ${SECONDS} s, mix context-only, every request distinct (load ${loadAverage()}):`,
    load,
  );
  if (args.includes("--distinct-only")) return;
  const cached = await queryLoad(url, questions, CLIENTS, { seconds: SECONDS }, false);
  console.log(
    `query, ${CLIENTS} clients, ${SECONDS} s, the ${questions.length} questions repeating, query cache on (load ${loadAverage()}):`,
    cached,
  );
  const around = await neighbourhoods(url);
  console.log(`neighbourhood depth 2, maxNodes 500 (load ${loadAverage()}):`, around);
}

async function main(): Promise<void> {
  const data = dataset();
  const base = await baseWorkspace(data);
  const served = join(ROOT, "served");
  await rm(served, { recursive: true, force: true });
  await cp(base, served, { recursive: true, filter: (src) => !src.includes(`${join(base, "server")}`) });
  const server = await createServer({
    workspaces: [served],
    env: {
      PATH: process.env.PATH,
      ...(childNodeOptions() ? { NODE_OPTIONS: childNodeOptions() } : {}),
      // The profiles start with the measured load: the warm-up's 40 queries are numbered 0 to 39.
      ...(option("--cpu-prof")
        ? {
            KGRAG_BENCH_CPU_PROFILE_DIR: option("--cpu-prof"),
            KGRAG_BENCH_CPU_PROFILE_FROM: String(WARM_UP_REQUESTS),
          }
        : {}),
    },
    server: {
      port: 0,
      rateLimitPerMinute: 1_000_000_000,
      ...(QUERY_WORKERS === undefined ? {} : { queryWorkers: QUERY_WORKERS }),
      ...(QUERY_WORKERS === undefined && args.includes("--neighbourhood-only") ? { queryWorkers: 0 } : {}),
      ...(QUERY_CACHE === undefined ? {} : { queryCache: { maxEntries: QUERY_CACHE } }),
      ...(JOB_NICE === undefined ? {} : { jobNice: JOB_NICE }),
      ...(AFFINITY_SLACK === undefined ? {} : { queryAffinitySlack: AFFINITY_SLACK }),
      neighbourhoodCache: {
        ...(NEIGHBOURHOOD_CACHE === undefined ? {} : { maxEntries: NEIGHBOURHOOD_CACHE }),
        ...(EDGE_PIECES === undefined ? {} : { maxEdgePieces: EDGE_PIECES }),
      },
    },
  });
  timeServerHandling(server.app);
  const url = await server.listen();
  console.log(
    `query workers: ${server.context.config.queryWorkers}; query cache entries: ${server.context.config.queryCache.maxEntries}; neighbourhood cache entries: ${server.context.config.neighbourhoodCache?.maxEntries}, edge pieces: ${server.context.config.neighbourhoodCache?.maxEdgePieces}; job nice: ${server.context.config.jobNice}; query affinity slack: ${server.context.config.queryAffinitySlack}; load average at start: ${loadAverage()}`,
  );
  try {
    if (args.includes("--neighbourhood-only")) {
      const around = await neighbourhoods(url);
      console.log(`neighbourhood depth 2, maxNodes 500 (load ${loadAverage()}):`, around);
      return;
    }
    const questions = questionsOf(data);
    loadClients = new LoadClients();
    await queryLoad(url, questions.slice(0, 20), 4, { maxRequests: WARM_UP_REQUESTS });
    if (!args.includes("--index-job-only")) await loadAndNeighbourhoods(url, questions);
    if (args.includes("--skip-index-job") || args.includes("--distinct-only")) return;
    const idle = await queryLoad(url, questions, 1, { seconds: 20 });
    const { during, job, jobSeconds } = await duringIndexJob(url, data, questions);
    console.log("query, 1 client, idle:", idle);
    console.log(
      `query, 1 client, during the index job (${jobSeconds.toFixed(0)} s, ${job.status}, ${job.stage} ${job.done}/${job.total}, ${job.message}):`,
      during,
    );
    console.log(`p95 during / idle: ${(during.p95 / idle.p95).toFixed(2)}x (load ${loadAverage()})`);
  } finally {
    loadClients?.close();
    await server.close();
  }
}

await main();
