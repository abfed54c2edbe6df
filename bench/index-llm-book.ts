/**
 * A book-length text indexed through a model, as a whole `kgrag index` process: how close does the
 * run come to keeping the model busy? A scripted OpenAI-compatible server answers every request
 * after a fixed latency; the bound is (chat + embedding requests) x latency / concurrency, the time
 * a run would take if `concurrency` requests were in flight from the first moment to the last.
 * The server samples how many requests are in flight, so the report shows where the model idles
 * (start-up, the gaps between stages, the last stragglers of a stage).
 * With --timeline it also prints (to stderr) the requests in flight over time, bucket by bucket,
 * with the stages whose requests were open in each bucket. `tail` splits the time after the last
 * extraction reply into its waits (merge and resolution set-up, clustering and report contexts,
 * the last report's slot, the end of the process). With --requests it prints (to stderr) every
 * request, sent and answered in ms from process start, with its stage: the dependent rounds.
 * Run: npx tsx bench/index-llm-book.ts [--latency 200] [--concurrency 4] [--chunks 40] [--timeline 100]
 *   [--requests] [--cpu-prof DIR] [--cli path/to/kgrag-cli.js] [--keep DIR (the workspace, kept)]
 *   [--keep-ca-env]
 * Needs `npm run build` first (it runs bin/kgrag.js, the way a user does). `--cli` runs another build
 * (e.g. `node scripts/bundle-cli.mjs dist/cli-before` at an older commit), for before/after runs.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ChatCall,
  lastUserMessage,
  startScriptedOpenAI,
} from "../test/support/scripted-openai-server.js";
import { processCpuSeconds } from "./support/process-cpu.js";

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

const LATENCY_MS = option("--latency", 200);
const CONCURRENCY = option("--concurrency", 4);
const CHUNKS = option("--chunks", 40);
const cliAt = process.argv.indexOf("--cli");
const CLI = cliAt >= 0 ? String(process.argv[cliAt + 1]) : join(import.meta.dirname, "..", "bin", "kgrag.js");
const TIMELINE_BUCKET_MS = option("--timeline", 0);
const PRINT_REQUESTS = process.argv.includes("--requests");
const profileAt = process.argv.indexOf("--cpu-prof");
/** A CPU profile of the kgrag process, to see what it does while the model waits. */
/**
 * NODE_EXTRA_CA_CERTS makes every Node process read and parse that certificate file as it starts
 * (this sandbox points it at a 140-certificate bundle: `node -e 0` 45 -> 95 ms). The run talks plain
 * HTTP to 127.0.0.1, so the variable is left out of its environment unless --keep-ca-env: the figure
 * is kgrag's start-up, not the machine's TLS setup. The printed JSON says which (`caEnvKept`).
 */
const KEEP_CA_ENV = process.argv.includes("--keep-ca-env");
const childEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => KEEP_CA_ENV || name !== "NODE_EXTRA_CA_CERTS"),
);
const PROFILE_ARGS =
  profileAt >= 0 ? ["--cpu-prof", "--cpu-prof-dir", process.argv[profileAt + 1] ?? "."] : [];

const CAST = [
  "Ada Marlow",
  "Ben Orrin",
  "Cora Vale",
  "Dmitri Hask",
  "Elena Fross",
  "Felix Arden",
  "Greta Lune",
  "Hugo Strand",
  "Iris Callow",
  "Jonas Brae",
  "Kira Walden",
  "Leo Margrave",
  "Mina Torres",
  "Nils Ebbe",
  "Olga Penrose",
  "Pavel Quill",
  "Rosa Hale",
  "Simon Dray",
  "Tessa Moor",
  "Umar Lindqvist",
];
const PLACES = [
  "Harrowgate",
  "the Salt Exchange",
  "Fennick Bridge",
  "the Old Observatory",
  "Marrow Quay",
  "Lanthorn Hall",
];

/** A seeded pseudo-random sequence, so every run indexes the same book. */
function* seeded(seed: number): Generator<number> {
  let state = seed;
  for (;;) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    yield state / 2_147_483_648;
  }
}

/** About `chunks` windows of 1,200 tokens of prose in which the cast meets, argues and travels. */
function book(chunks: number): string {
  const random = seeded(7);
  const pick = <T>(items: T[]): T => items[Math.floor(random.next().value * items.length)] as T;
  const verbs = ["met", "argued with", "wrote to", "travelled with", "owed money to", "taught", "warned"];
  const paragraphs: string[] = [];
  // ~80 tokens per paragraph, 15 per 1,200-token window.
  for (let i = 0; i < chunks * 15; i += 1) {
    const a = pick(CAST);
    const b = pick(CAST.filter((name) => name !== a));
    const place = pick(PLACES);
    paragraphs.push(
      `In the ${i + 1}th week of the voyage, ${a} ${pick(verbs)} ${b} at ${place}. ` +
        `Nobody at ${place} expected it, and ${b} kept a careful note of what was said, ` +
        `because the ledger of the company would later depend on it. ${a} left before dawn, ` +
        `taking the north road past the mills, where the river turns twice before the sea.`,
    );
  }
  return paragraphs.join("\n\n");
}

function namesIn(text: string): string[] {
  return [...CAST, ...PLACES].filter((name) => text.includes(name));
}

function extraction(text: string): string {
  const names = namesIn(text);
  const people = names.filter((n) => CAST.includes(n));
  return JSON.stringify({
    entities: names.map((name) => ({
      name,
      type: CAST.includes(name) ? "person" : "location",
      description: `${name}, as this part of the story tells it: ${text.slice(0, 80)}`,
    })),
    relationships: people.slice(1).map((name, i) => ({
      source: people[i],
      target: name,
      description: `${people[i]} and ${name} cross paths in the same week.`,
      keywords: ["voyage"],
      strength: 6,
    })),
  });
}

function reply(call: ChatCall): { content: string } {
  const text = lastUserMessage(call);
  switch (call.stage) {
    case "extract":
      return { content: extraction(text) };
    case "summarize":
      return { content: "A traveller of the voyage, often at the quays, who keeps meeting the others." };
    case "report":
      return {
        content: JSON.stringify({
          title: "Travellers of the voyage",
          summary: "People who meet at the quays and halls of the voyage.",
          rating: 5,
          rating_explanation: "A close group.",
          findings: [{ summary: "They meet often", explanation: "Week after week at the same places." }],
        }),
      };
    default:
      return { content: JSON.stringify({ entities: [], relationships: [] }) };
  }
}

const server = await startScriptedOpenAI({ latencyMs: LATENCY_MS, chat: reply });
const root = mkdtempSync(join(tmpdir(), "kgrag-bench-book-"));
const file = join(root, "voyage.txt");
writeFileSync(file, `The Voyage\n\n${book(CHUNKS)}\n`);

// Requests in flight, sampled every 5 ms while the process runs: the model's idle time.
const samples: number[] = [];
// The process's CPU time (Linux /proc) when its first request arrives and at its last sample: on
// a busy machine it moves far less than wall time does.
const cpu = { beforeFirstRequestMs: Number.NaN, totalMs: Number.NaN };
let childPid: number | undefined;
const sampler = setInterval(() => {
  samples.push(server.inFlight);
  const cpuSeconds = childPid === undefined ? undefined : processCpuSeconds(childPid);
  if (cpuSeconds === undefined) return;
  const used = cpuSeconds * 1000;
  cpu.totalMs = used;
  if (Number.isNaN(cpu.beforeFirstRequestMs) && server.requests.length > 0) cpu.beforeFirstRequestMs = used;
}, 5);
const started = performance.now();
const startedAt = Date.now();
const output = await new Promise<string>((resolve, reject) => {
  const child = spawn(
    process.execPath,
    [...PROFILE_ARGS, CLI, "index", file, "--workspace", join(root, "ws"), "--json"],
    {
      env: {
        ...childEnv,
        KGRAG_LLM_BASE_URL: server.baseURL,
        KGRAG_LLM_API_KEY: "bench",
        KGRAG_LLM_MODEL: "bench",
        KGRAG_LLM_CONCURRENCY: String(CONCURRENCY),
        KGRAG_EMBEDDING_MODEL: "bench-embed",
        KGRAG_EMBEDDING_DIM: "64",
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  childPid = child.pid;
  let stdout = "";
  child.stdout.on("data", (data: Buffer) => {
    stdout += data.toString();
  });
  child.on("error", reject);
  child.on("exit", (code) =>
    code === 0 ? resolve(stdout) : reject(new Error(`kgrag index exited ${code}`)),
  );
});
const elapsed = performance.now() - started;
const endedAt = Date.now();
clearInterval(sampler);
await server.close();
const KEEP_AT = process.argv.indexOf("--keep");
// The workspace kept for a row-by-row comparison of two builds' graphs.
if (KEEP_AT >= 0) renameSync(join(root, "ws"), String(process.argv[KEEP_AT + 1]));
rmSync(root, { recursive: true, force: true });

const requests = server.countByStage();
const total = Object.values(requests).reduce((a, b) => a + b, 0);
const bound = (total * LATENCY_MS) / CONCURRENCY;
const firstRequest = Math.min(...server.requests.map((r) => r.receivedAt));
const lastRequest = Math.max(...server.requests.map((r) => r.receivedAt));
const idleShare = samples.filter((n) => n < CONCURRENCY).length / Math.max(1, samples.length);
const summary = JSON.parse(output) as {
  chunks: number;
  entities: number;
  relationships: number;
  stagesMs?: Record<string, number>;
};
console.log(
  JSON.stringify({
    chunks: summary.chunks,
    entities: summary.entities,
    relationships: summary.relationships,
    latencyMs: LATENCY_MS,
    concurrency: CONCURRENCY,
    requests,
    boundMs: Math.round(bound),
    elapsedMs: Math.round(elapsed),
    ratio: Number((elapsed / bound).toFixed(2)),
    caEnvKept: KEEP_CA_ENV,
    /** From process start to the first model request: start-up, reading and chunking. */
    beforeFirstRequestMs: firstRequest - startedAt,
    /** The process's CPU time by its first request, and in all (to its last 5 ms sample; Linux only). */
    cpuBeforeFirstRequestMs: cpu.beforeFirstRequestMs,
    cpuMs: cpu.totalMs,
    requestSpanMs: lastRequest - firstRequest,
    /** The run as the model saw it: the bound against the time from the first request to the end. */
    ratioAfterFirstRequest: Number(((endedAt - firstRequest) / bound).toFixed(2)),
    /**
     * While the model extracts (a queue of requests always waiting), ms from a reply to the next
     * request's arrival, median and 90th percentile: the client's time to hand a slot on; and
     * after the first round's replies alone (median, most).
     */
    handoverMs: handovers(),
    /** Share of the run with fewer than `concurrency` requests in flight. */
    underusedShare: Number(idleShare.toFixed(2)),
    /** When each stage's requests started, in ms from process start: first and last. */
    stages: stageSpans(),
    /** The run's own wall time per pipeline stage (stages that overlap both count). */
    runStagesMs: summary.stagesMs,
    /** After the last extraction reply, where the model waits on the run (see tailBreakdown). */
    tail: tailBreakdown(),
  }),
);

if (TIMELINE_BUCKET_MS > 0) printTimeline(TIMELINE_BUCKET_MS);
if (PRINT_REQUESTS) printRequests();

/** Every request in the order sent: ms from process start when sent and answered, and its stage. */
function printRequests(): void {
  const lines = [...server.requests]
    .sort((a, b) => a.receivedAt - b.receivedAt)
    .map((r) => {
      const sent = String(r.receivedAt - startedAt).padStart(6);
      const answered = String((r.answeredAt ?? endedAt) - startedAt).padStart(6);
      return `${sent} -> ${answered} ms ${r.stage || "embed"}`;
    });
  console.error(lines.join("\n"));
}

/**
 * Requests in flight per time bucket (mean over the bucket, from each request's receive and answer
 * times), as a bar, with the stages whose requests were open: where the model idles.
 */
function printTimeline(bucketMs: number): void {
  const lines: string[] = [];
  for (let from = startedAt; from < endedAt; from += bucketMs) {
    const to = from + bucketMs;
    let busyMs = 0;
    const stages = new Map<string, number>();
    for (const r of server.requests) {
      const overlap = Math.min(to, r.answeredAt ?? endedAt) - Math.max(from, r.receivedAt);
      if (overlap <= 0) continue;
      busyMs += overlap;
      const stage = r.stage || "embed";
      stages.set(stage, (stages.get(stage) ?? 0) + overlap);
    }
    const mean = busyMs / bucketMs;
    const bar = "#".repeat(Math.round(mean * 4)).padEnd(CONCURRENCY * 4, ".");
    const names = [...stages].map(([name, ms]) => `${name}:${(ms / bucketMs).toFixed(1)}`).join(" ");
    lines.push(`${String(from - startedAt).padStart(6)} ms ${mean.toFixed(1).padStart(4)} ${bar} ${names}`);
  }
  console.error(lines.join("\n"));
}

/**
 * The run after its last extraction reply, in ms: to the resolution's embedding request, from its
 * reply to the first report request, the last report's wait for a free slot after the first
 * report came back, from the last report's reply to the reports' embedding, and from that
 * embedding's reply to the process's exit.
 */
function tailBreakdown(): Record<string, number> {
  const sent = (r: { receivedAt: number }) => r.receivedAt;
  const answered = (r: { answeredAt?: number }) => r.answeredAt ?? endedAt;
  const byStage = (stage: string) => server.requests.filter((r) => r.stage === stage);
  const extractionEnd = Math.max(...[...byStage("extract"), ...byStage("glean")].map(answered));
  const embedsAfter = server.requests
    .filter((r) => r.path.includes("embeddings") && r.receivedAt >= extractionEnd)
    .sort((a, b) => sent(a) - sent(b));
  const reports = byStage("report");
  const resolution = embedsAfter[0];
  const reportVectors = embedsAfter.at(-1);
  if (!resolution || !reportVectors || reports.length === 0) return { totalMs: endedAt - extractionEnd };
  return {
    totalMs: endedAt - extractionEnd,
    toResolutionEmbedding: sent(resolution) - extractionEnd,
    resolutionToReports: Math.min(...reports.map(sent)) - answered(resolution),
    lastReportWaited: Math.max(0, Math.max(...reports.map(sent)) - Math.min(...reports.map(answered))),
    toReportEmbedding: sent(reportVectors) - Math.max(...reports.map(answered)),
    toExit: endedAt - answered(reportVectors),
  };
}

function handovers(): { median: number; p90: number; firstRoundMedian: number; firstRoundMax: number } {
  const extraction = server.requests
    .filter((r) => r.stage === "extract" || r.stage === "glean")
    .sort((a, b) => a.receivedAt - b.receivedAt);
  const lastSent = Math.max(...extraction.map((r) => r.receivedAt));
  const sentTimes = extraction.map((r) => r.receivedAt);
  const gapsAfter = (requests: typeof extraction) =>
    requests
      .flatMap((r) => (r.answeredAt !== undefined && r.answeredAt < lastSent ? [r.answeredAt] : []))
      .map((answered) => (sentTimes.find((sent) => sent >= answered) ?? answered) - answered)
      .sort((a, b) => a - b);
  const at = (gaps: number[], share: number) =>
    gaps[Math.min(gaps.length - 1, Math.floor(share * gaps.length))] ?? 0;
  const gaps = gapsAfter(extraction);
  // The first round's replies meet the run's one-off costs (first use of the reply path, start-up
  // work left for the wait): their handovers apart.
  const firstRound = gapsAfter(extraction.slice(0, CONCURRENCY));
  return {
    median: at(gaps, 0.5),
    p90: at(gaps, 0.9),
    firstRoundMedian: at(firstRound, 0.5),
    firstRoundMax: firstRound.at(-1) ?? 0,
  };
}

function stageSpans(): Record<string, [number, number]> {
  const spans: Record<string, [number, number]> = {};
  for (const r of server.requests) {
    const at = r.receivedAt - startedAt;
    const span = spans[r.stage || "embed"];
    spans[r.stage || "embed"] = span ? [Math.min(span[0], at), Math.max(span[1], at)] : [at, at];
  }
  return spans;
}
