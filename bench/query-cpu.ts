/**
 * Process CPU per context-only query, in one process, on a development set's workspace (the one
 * bench/retrieval-sets.ts indexed; KGRAG_BENCH_WORKSPACES as there): what retrieval and context
 * building cost without HTTP or the server's processes. Every mode is warmed on the whole question
 * list first (caches keyed by the data generation fill), then each round asks every question once
 * per mode, modes interleaved question by question, so a busy machine weighs on all modes alike.
 * --cold-keywords turns the per-question keyword memo off (every question is then new to it).
 * --cpu-prof FILE writes a CPU profile of the measured rounds (after the warm-up), for one mode at a time.
 * --first-pass warms up as a server's query process does (its one warm-up question in every mode)
 * and measures each question's first pass apart, before the rounds: what a question new to the
 * process costs (its full-text postings, keywords, context lines' token counts not cached yet).
 * Run: npx tsx bench/query-cpu.ts [--set hotpotqa-100] [--modes mix,local] [--rounds 3]
 *        [--cold-keywords] [--first-pass] [--cpu-prof FILE]
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import { formatTable } from "../src/cli/output.js";
import { createKgrag } from "../src/kgrag.js";
import { readEvalQuestions } from "../src/query/eval/run-eval.js";
import { QUERY_MODES, type QueryMode } from "../src/query/options.js";
import { runQuery } from "../src/query/query-engine.js";
import { WARM_UP_QUESTION } from "../src/server/queries/query-messages.js";
import { DEV_SETS, setWorkspace } from "./support/dev-sets.js";

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

function cpuMs(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}

async function main(): Promise<void> {
  const set = option("--set") ?? "hotpotqa-100";
  const modes = (option("--modes")?.split(",") ?? [...QUERY_MODES]) as QueryMode[];
  const rounds = Number(option("--rounds") ?? 3);
  const profileFile = option("--cpu-prof");
  if (profileFile && modes.length !== 1) throw new Error("--cpu-prof profiles one mode: pass --modes MODE");
  const workspace = setWorkspace(set);
  const questionsFile = join(DEV_SETS[set] ?? "", "questions.jsonl");
  if (!existsSync(workspace) || !existsSync(questionsFile))
    throw new Error(`${set}: no workspace or questions`);
  const questions = (await readEvalQuestions(questionsFile)).map((q) => q.question);
  const query = args.includes("--cold-keywords") ? { offlineKeywordCache: 0 } : {};
  const kgrag = await createKgrag({ env: {}, config: { workspace, query } });
  const session = profileFile ? new Session() : undefined;
  try {
    const firstPass = args.includes("--first-pass")
      ? await measureFirstPass(kgrag.services, questions, modes)
      : await warmUp(kgrag.services, questions, modes);
    const spent = new Map(modes.map((mode) => [mode, 0]));
    if (session) {
      session.connect();
      await session.post("Profiler.enable");
      await session.post("Profiler.setSamplingInterval", { interval: 200 });
      await session.post("Profiler.start");
    }
    for (let round = 0; round < rounds; round++) {
      for (const question of questions) {
        for (const mode of modes) {
          const before = cpuMs();
          await runQuery(kgrag.services, question, { mode, contextOnly: true });
          spent.set(mode, (spent.get(mode) ?? 0) + cpuMs() - before);
        }
      }
    }
    const count = rounds * questions.length;
    const rows = modes.map((mode) => [
      mode,
      String(count),
      ((spent.get(mode) ?? 0) / count).toFixed(2),
      ...(firstPass ? [((firstPass.get(mode) ?? 0) / questions.length).toFixed(2)] : []),
    ]);
    console.log(
      `${set}, load average ${loadavg()
        .map((n) => n.toFixed(2))
        .join(", ")}`,
    );
    const columns = ["mode", "queries", "CPU ms/query", ...(firstPass ? ["first pass CPU ms/query"] : [])];
    console.log(formatTable(columns, rows));
    if (session && profileFile) {
      const { profile } = await session.post("Profiler.stop");
      await writeFile(profileFile, JSON.stringify(profile));
      console.log(`profile of ${modes[0]}: ${profileFile}`);
    }
  } finally {
    session?.disconnect();
    await kgrag.close();
  }
}

type Services = Awaited<ReturnType<typeof createKgrag>>["services"];

/** Every question once per mode, so the rounds measure warm queries only. */
async function warmUp(services: Services, questions: string[], modes: QueryMode[]): Promise<undefined> {
  for (const mode of modes)
    for (const question of questions) await runQuery(services, question, { mode, contextOnly: true });
  return undefined;
}

/** A query process's warm-up, then each question's first pass per mode: CPU ms summed by mode. */
async function measureFirstPass(
  services: Services,
  questions: string[],
  modes: QueryMode[],
): Promise<Map<QueryMode, number>> {
  for (const mode of QUERY_MODES) await runQuery(services, WARM_UP_QUESTION, { mode, contextOnly: true });
  const spent = new Map<QueryMode, number>();
  for (const question of questions) {
    for (const mode of modes) {
      const before = cpuMs();
      await runQuery(services, question, { mode, contextOnly: true });
      spent.set(mode, (spent.get(mode) ?? 0) + cpuMs() - before);
    }
  }
  return spent;
}

await main();
