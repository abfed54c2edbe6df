/**
 * Where the two stores part ways: the workspaces `bench/neo4j-parity.ts --keep DIR` left behind
 * (SQLite in DIR, Neo4j on NEO4J_URI) answer every development question in each mode while every
 * store call is recorded; for the questions whose all-gold@8 differs between the stores (or all of
 * them with --all), it prints the first store calls that were asked with the same arguments and
 * answered differently (ids in rank order; BM25 scores differ by engine, so only ids are compared),
 * and the calls only one store was asked (a difference upstream changed the arguments).
 * Run: NEO4J_URI=... NEO4J_PASSWORD=... npx tsx bench/neo4j-parity-diff.ts --keep DIR
 *   [--copies 1] [--modes hybrid,mix] [--all] [--calls 3]
 */
import { join } from "node:path";
import { createKgrag, type Kgrag } from "../src/kgrag.js";
import { normalizeTitle } from "../src/query/eval/metrics.js";
import { readEvalQuestions } from "../src/query/eval/run-eval.js";
import { QUERY_MODES, type QueryMode } from "../src/query/options.js";
import { runQuery } from "../src/query/query-engine.js";
import type { KgragServices } from "../src/services.js";
import type { GraphStore } from "../src/storage/graph-store.js";
import { HOTPOTQA } from "./support/haystack.js";

function textOption(name: string): string | undefined {
  const args = process.argv.slice(2);
  return args.includes(name) ? args[args.indexOf(name) + 1] : undefined;
}

/** Calls of one query: call key (method and arguments) -> the answer, in a comparable form. */
type CallLog = Map<string, string>;

/** Sets, maps and scored lists in a stable, comparable form; scores left out of scored lists. */
function comparable(value: unknown): unknown {
  if (value instanceof Set) return [...value].map(String).sort();
  if (value instanceof Map) return [...value].map(([k, v]) => [k, comparable(v)]).sort();
  if (Array.isArray(value)) return value.map(comparable);
  if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    if (typeof record.id === "string" && typeof record.score === "number") return record.id;
    if (Array.isArray(record.query)) return "<vector>";
    return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, comparable(v)]));
  }
  if (typeof value === "number") return Math.round(value * 1e6) / 1e6;
  return value;
}

function argsKey(method: string, args: unknown[]): string {
  const shown = args.map((arg) =>
    Array.isArray(arg) && typeof arg[0] === "number" ? `<vector ${arg.length}>` : comparable(arg),
  );
  return `${method}(${JSON.stringify(shown)})`;
}

/** The store with every call's answer recorded into `log.current`. */
function recordingStore(store: GraphStore, log: { current: CallLog }): GraphStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || typeof property !== "string") return value;
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.then((answer: unknown) => {
          const key = argsKey(property, args);
          const shown = JSON.stringify(comparable(answer));
          const calls = log.current;
          calls.set(calls.has(key) ? `${key} #${calls.size}` : key, shown);
          return answer;
        });
      };
    },
  });
}

interface Side {
  services: KgragServices;
  log: { current: CallLog };
  kg: Kgrag;
}

async function side(kg: Kgrag): Promise<Side> {
  const log = { current: new Map() as CallLog };
  return { kg, log, services: { ...kg.services, store: recordingStore(kg.services.store, log) } };
}

async function ask(
  s: Side,
  question: string,
  mode: QueryMode,
): Promise<{ titles: string[]; calls: CallLog }> {
  s.log.current = new Map();
  const result = await runQuery(s.services, question, { mode, contextOnly: true, chunkTopK: 20 });
  return { titles: [...new Set(result.references.map((r) => r.title))], calls: s.log.current };
}

function allGold(titles: string[], gold: string[], k: number): boolean {
  const top = new Set(titles.slice(0, k).map(normalizeTitle));
  return gold.every((t) => top.has(normalizeTitle(t)));
}

function short(text: string, max = 400): string {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

function printDifferences(sqlite: CallLog, neo4j: CallLog, max: number): void {
  let shown = 0;
  for (const [key, answer] of sqlite) {
    const other = neo4j.get(key);
    if (other === undefined || other === answer) continue;
    if (shown++ >= max) break;
    console.log(
      `    differs: ${short(key, 300)}\n      sqlite ${short(answer)}\n      neo4j  ${short(other)}`,
    );
  }
  const onlySqlite = [...sqlite.keys()].filter((k) => !neo4j.has(k));
  const onlyNeo4j = [...neo4j.keys()].filter((k) => !sqlite.has(k));
  for (const key of onlySqlite.slice(0, max)) console.log(`    only sqlite: ${short(key, 300)}`);
  for (const key of onlyNeo4j.slice(0, max)) console.log(`    only neo4j:  ${short(key, 300)}`);
}

async function main(): Promise<void> {
  const dir = textOption("--keep");
  const uri = process.env.NEO4J_URI;
  if (!dir || !uri) throw new Error("Pass --keep DIR (as given to neo4j-parity.ts) and set NEO4J_URI.");
  const copies = Number(textOption("--copies") ?? 1);
  const modes = (textOption("--modes")?.split(",") ?? [...QUERY_MODES]) as QueryMode[];
  const every = process.argv.includes("--all");
  const maxCalls = Number(textOption("--calls") ?? 3);
  const workspaceName = `parity-${copies}x`;
  const neo4j = {
    uri,
    username: process.env.NEO4J_USERNAME ?? "neo4j",
    password: process.env.NEO4J_PASSWORD ?? "",
    database: process.env.NEO4J_DATABASE,
  };
  const sqlite = await side(await createKgrag({ env: {}, config: { workspace: join(dir, workspaceName) } }));
  const graph = await side(
    await createKgrag({
      env: {},
      config: { workspace: join(dir, "neo4j", workspaceName), storage: "neo4j", neo4j },
    }),
  );
  try {
    const questions = await readEvalQuestions(join(HOTPOTQA, "questions.jsonl"));
    for (const mode of modes) {
      const score = { sqlite: 0, neo4j: 0, sameTitles: 0 };
      for (const q of questions) {
        const a = await ask(sqlite, q.question, mode);
        const b = await ask(graph, q.question, mode);
        const goldA = allGold(a.titles, q.gold_titles, 8);
        const goldB = allGold(b.titles, q.gold_titles, 8);
        score.sqlite += goldA ? 1 : 0;
        score.neo4j += goldB ? 1 : 0;
        const same = a.titles.slice(0, 8).join("|") === b.titles.slice(0, 8).join("|");
        score.sameTitles += same ? 1 : 0;
        if (goldA === goldB && (same || !every)) continue;
        console.log(`\n[${mode}] all-gold@8 sqlite ${goldA ? 1 : 0} neo4j ${goldB ? 1 : 0}: ${q.question}`);
        console.log(`  gold:   ${q.gold_titles.join(" | ")}`);
        console.log(`  sqlite: ${a.titles.slice(0, 8).join(" | ")}`);
        console.log(`  neo4j:  ${b.titles.slice(0, 8).join(" | ")}`);
        printDifferences(a.calls, b.calls, maxCalls);
      }
      const n = questions.length;
      console.log(
        `\n== ${mode}: all-gold@8 sqlite ${(score.sqlite / n).toFixed(2)} neo4j ${(score.neo4j / n).toFixed(2)}; ` +
          `same top-8 documents ${score.sameTitles}/${n}`,
      );
    }
  } finally {
    await sqlite.kg.close();
    await graph.kg.close();
  }
}

await main();
