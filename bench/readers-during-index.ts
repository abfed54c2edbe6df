/**
 * Readers never wait for writers: query p95 on a workspace while `kgrag index` runs on it (a real
 * child process adding documents), against the same queries on the idle workspace, and how many
 * queries failed (a busy error would count). Offline built-ins, context only, mode mix.
 * Run: npx tsx bench/readers-during-index.ts [--docs N] [--queries Q]
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createKgrag, type Kgrag } from "../src/kgrag.js";

const REPO = fileURLToPath(new URL("../", import.meta.url));
const PEOPLE = [
  "Ada Lovelace",
  "Alan Turing",
  "Grace Hopper",
  "Claude Shannon",
  "John von Neumann",
  "Emmy Noether",
];
const PLACES = ["London", "Princeton", "Cambridge", "Göttingen", "Manchester", "New York"];

function argument(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
}

/** Documents of generated sentences naming people and places, so the extractor finds a graph. */
function writeCorpus(dir: string, from: number, to: number): void {
  mkdirSync(dir, { recursive: true });
  for (let d = from; d < to; d++) {
    const lines = [`Report ${d}`, ""];
    for (let s = 0; s < 30; s++) {
      const person = PEOPLE[(d + s) % PEOPLE.length];
      const other = PEOPLE[(d * 7 + s * 3) % PEOPLE.length];
      const place = PLACES[(d + s * 5) % PLACES.length];
      lines.push(`${person} met ${other} in ${place} to discuss machine ${d * 31 + s} and project ${s}.`);
    }
    writeFileSync(join(dir, `doc-${d}.txt`), lines.join("\n"));
  }
}

const QUESTIONS = PEOPLE.flatMap((person) => PLACES.map((place) => `What did ${person} do in ${place}?`));

async function timeQueries(kgrag: Kgrag, count: number, until?: () => boolean) {
  const spent: number[] = [];
  let failures = 0;
  const errors = new Set<string>();
  for (let i = 0; (until ? !until() : true) && i < count; i++) {
    const started = performance.now();
    try {
      await kgrag.query(QUESTIONS[i % QUESTIONS.length] as string, { mode: "mix", contextOnly: true });
      spent.push(performance.now() - started);
    } catch (error) {
      failures += 1;
      errors.add(String(error).slice(0, 120));
    }
    // A query on the embedded store never waits on I/O: without this the loop would starve the
    // event loop, and the indexer's exit would never be seen.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { spent, failures, errors: [...errors] };
}

function p95(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round((sorted[Math.min(sorted.length - 1, Math.floor(0.95 * sorted.length))] ?? 0) * 10) / 10;
}

const docs = argument("docs", 400);
const queries = argument("queries", 200);
const root = mkdtempSync(join(tmpdir(), "kgrag-readers-"));
const workspace = join(root, "workspace");
writeCorpus(join(root, "first"), 0, docs / 4);
writeCorpus(join(root, "second"), docs / 4, docs);

const seed = await createKgrag({ env: {}, config: { workspace } });
await seed.index([join(root, "first")]);
await seed.close();

const reader = await createKgrag({ env: {}, config: { workspace } });
const idle = await timeQueries(reader, queries);

const child = spawn(
  process.execPath,
  ["--import", "tsx", "src/cli/run.ts", "index", join(root, "second"), "--workspace", workspace],
  { cwd: REPO, stdio: ["ignore", "ignore", "pipe"], env: { PATH: process.env.PATH ?? "", HOME: root } },
);
let running = true;
const indexStarted = performance.now();
const exited = new Promise<number | null>((resolve) =>
  child.on("exit", (code) => {
    running = false;
    resolve(code);
  }),
);
// Let the child open the workspace and start writing before measuring.
await new Promise((resolve) => setTimeout(resolve, 3000));
const busy = await timeQueries(reader, Number.MAX_SAFE_INTEGER, () => !running);
const code = await exited;
await reader.close();
rmSync(root, { recursive: true, force: true });

console.log(
  JSON.stringify({
    idle: { queries: idle.spent.length, p95Ms: p95(idle.spent), failures: idle.failures },
    duringIndex: {
      queries: busy.spent.length,
      p95Ms: p95(busy.spent),
      failures: busy.failures,
      errors: busy.errors,
      indexSeconds: Math.round((performance.now() - indexStarted) / 100) / 10,
      indexExitCode: code,
    },
    ratio: Math.round((p95(busy.spent) / Math.max(0.1, p95(idle.spent))) * 100) / 100,
  }),
);
