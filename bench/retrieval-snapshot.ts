/**
 * What every mode retrieves for every question of the development sets, saved to a file, so a
 * speed change can be shown to change nothing: the next run with --compare lists each question
 * whose context (entities, relationships, passages, reports, in order) differs. It also prints
 * context-only latency (p50/p95 and process CPU per query, with the load average) per set and mode.
 * Reads the workspaces bench/retrieval-sets.ts indexed (KGRAG_BENCH_WORKSPACES); it indexes nothing.
 * Run: npx tsx bench/retrieval-snapshot.ts --out FILE [--compare FILE] [--sets a,b] [--modes m,n]
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { formatTable } from "../src/cli/output.js";
import { createKgrag } from "../src/kgrag.js";
import { readEvalQuestions } from "../src/query/eval/run-eval.js";
import { QUERY_MODES, type QueryMode } from "../src/query/options.js";
import { runQuery } from "../src/query/query-engine.js";
import type { QueryResult } from "../src/query/result.js";
import { DEV_SETS, setWorkspace } from "./support/dev-sets.js";
import { percentile } from "./support/haystack.js";

/** set -> mode -> question id -> the context's fingerprint. */
type Snapshot = Record<string, Record<string, Record<string, string[]>>>;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const out = option("--out");
  if (!out) throw new Error("--out FILE is required");
  const sets = option("--sets")?.split(",") ?? Object.keys(DEV_SETS);
  const modes = (option("--modes")?.split(",") ?? [...QUERY_MODES]) as QueryMode[];
  const snapshot: Snapshot = {};
  const latency: string[][] = [];
  for (const set of sets) {
    const questionsFile = join(DEV_SETS[set] ?? "", "questions.jsonl");
    const workspace = setWorkspace(set);
    if (!existsSync(questionsFile) || !existsSync(workspace)) {
      console.log(`${set}: no questions or no workspace (run bench/retrieval-sets.ts first)`);
      continue;
    }
    const questions = await readEvalQuestions(questionsFile);
    const kgrag = await createKgrag({ env: {}, config: { workspace } });
    try {
      const bySet: Record<string, Record<string, string[]>> = {};
      snapshot[set] = bySet;
      for (const mode of modes) {
        const byQuestion: Record<string, string[]> = {};
        bySet[mode] = byQuestion;
        // Warm-up (untimed): caches keyed by the database generation fill on the first queries.
        for (const q of questions.slice(0, 5))
          await runQuery(kgrag.services, q.question, { mode, contextOnly: true });
        const times: number[] = [];
        const cpuBefore = process.cpuUsage();
        for (const q of questions) {
          const t0 = performance.now();
          const result = await runQuery(kgrag.services, q.question, { mode, contextOnly: true });
          times.push(performance.now() - t0);
          byQuestion[q.id] = fingerprint(result);
        }
        const cpu = process.cpuUsage(cpuBefore);
        times.sort((a, b) => a - b);
        latency.push([
          set,
          mode,
          String(times.length),
          percentile(times, 50).toFixed(1),
          percentile(times, 95).toFixed(1),
          ((cpu.user + cpu.system) / 1000 / times.length).toFixed(1),
          loadavg()[0]?.toFixed(2) ?? "?",
        ]);
        console.log(latency.at(-1)?.join("  "));
      }
    } finally {
      await kgrag.close();
    }
  }
  await writeFile(out, JSON.stringify(snapshot));
  console.log(
    `\n${formatTable(["set", "mode", "queries", "p50 ms", "p95 ms", "CPU ms/query", "load avg (1 min)"], latency)}`,
  );
  const compare = option("--compare");
  if (compare) report(JSON.parse(await readFile(compare, "utf8")) as Snapshot, snapshot);
}

/** Everything the context holds, in order, scores rounded (summation order may move the last bits). */
function fingerprint(result: QueryResult): string[] {
  const { entities, relationships, chunks, communities } = result.context;
  return [
    `E ${entities.map((e) => `${e.name}:${e.score.toPrecision(6)}`).join("|")}`,
    `R ${relationships.map((r) => `${r.source}>${r.target}:${r.score.toPrecision(6)}`).join("|")}`,
    `C ${chunks.map((c) => `${c.id}:${c.score.toPrecision(6)}`).join("|")}`,
    `G ${communities.map((c) => c.id).join("|")}`,
  ];
}

function report(before: Snapshot, after: Snapshot): void {
  const rows: string[][] = [];
  for (const [set, modes] of Object.entries(after)) {
    for (const [mode, questions] of Object.entries(modes)) {
      const old = before[set]?.[mode];
      if (!old) continue;
      const differing = Object.entries(questions).filter(
        ([id, lines]) => JSON.stringify(old[id]) !== JSON.stringify(lines),
      );
      rows.push([set, mode, String(Object.keys(questions).length), String(differing.length)]);
      for (const [id, lines] of differing.slice(0, 2)) {
        const was = old[id] ?? [];
        lines.forEach((line, i) => {
          if (line !== was[i]) console.log(`${set} ${mode} ${id}\n  before ${was[i]}\n  after  ${line}`);
        });
      }
    }
  }
  console.log(`\n${formatTable(["set", "mode", "questions", "contexts that differ"], rows)}`);
}

await main();
