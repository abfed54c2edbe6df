/**
 * Sweeps the fusion weights of naive, hybrid and mix on the development sets without re-running
 * the graph walks per setting: each question's ranked lists (BM25 chunks, vector chunks, local's
 * and global's passages) are computed once, then every weighting is scored in memory at passage
 * (document) level, as bench/retrieval-sets.ts scores the modes. Used to choose query.fusion.
 * Needs the workspaces bench/retrieval-sets.ts builds (run it once first).
 * Run: npx tsx bench/fusion-sweep.ts [--sets a,b]
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatTable } from "../src/cli/output.js";
import { createKgrag } from "../src/kgrag.js";
import { documentTitles } from "../src/query/context/references.js";
import { mean, scoreRetrieval } from "../src/query/eval/metrics.js";
import { readEvalQuestions } from "../src/query/eval/run-eval.js";
import { interleave, type WeightedList, weightedReciprocalRankFusion } from "../src/query/fusion.js";
import { QueryGraph } from "../src/query/graph/query-graph.js";
import { extractKeywords } from "../src/query/keywords.js";
import { retrieveGlobal } from "../src/query/modes/global.js";
import { retrieveLocal } from "../src/query/modes/local.js";
import { candidateDepth, queryTexts, type RetrievalInput } from "../src/query/modes/retrieval.js";
import { resolveQueryOptions } from "../src/query/options.js";
import type { KgragServices } from "../src/services.js";
import type { ScoredId } from "../src/types.js";
import { DEV_SETS, KS } from "./support/dev-sets.js";

const SETS = DEV_SETS;

interface Lists {
  gold: string[];
  text: ScoredId[];
  vector: ScoredId[];
  local: ScoredId[];
  global: ScoredId[];
}

type Variant = [name: string, rank: (l: Lists) => ScoredId[]];

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const sets = args.includes("--sets")
    ? (args[args.indexOf("--sets") + 1] ?? "").split(",")
    : Object.keys(SETS);
  const rows: string[][] = [];
  for (const set of sets) {
    const dir = SETS[set] ?? "";
    const kgrag = await createKgrag({
      env: {},
      config: { workspace: join(tmpdir(), `kgrag-bench-set-${set}`) },
    });
    try {
      const questions = await readEvalQuestions(join(dir, "questions.jsonl"));
      const all: Lists[] = [];
      for (const q of questions) all.push(await listsFor(kgrag.services, q.question, q.gold_titles));
      const titleOf = await chunkTitles(kgrag.services, all);
      for (const [name, rank] of variants()) {
        const scores = all.map((l) =>
          scoreRetrieval(
            [
              ...new Set(
                rank(l)
                  .slice(0, 40)
                  .map((c) => titleOf.get(c.id) ?? c.id),
              ),
            ],
            l.gold,
            KS,
          ),
        );
        rows.push([
          set,
          name,
          ...KS.map((k) => mean(scores.map((s) => s.allGold[k] ?? 0)).toFixed(2)),
          mean(scores.map((s) => s.reciprocalRank)).toFixed(2),
        ]);
      }
      console.log(
        formatTable(
          ["set", "variant", ...KS.map((k) => `all-gold@${k}`), "MRR"],
          rows.filter((r) => r[0] === set),
        ),
      );
    } finally {
      await kgrag.close();
    }
  }
}

function variants(): Variant[] {
  const naive = (w: number) => (l: Lists) =>
    weightedReciprocalRankFusion([
      { items: l.text, weight: 1 },
      { items: l.vector, weight: w },
    ]);
  const out: Variant[] = [
    ["bm25", (l) => l.text],
    ["vector", (l) => l.vector],
    ["local", (l) => l.local],
    ["global", (l) => l.global],
  ];
  for (const w of [0, 0.01, 0.1, 0.25, 1]) out.push([`naive v=${w}`, naive(w)]);
  out.push(["hybrid interleave", (l) => interleave([l.local, l.global])]);
  for (const g of [0.25, 0.5, 1]) {
    out.push([
      `hybrid rrf g=${g}`,
      (l) =>
        fuse([
          [l.local, 1],
          [l.global, g],
        ]),
    ]);
  }
  out.push(["mix interleave l,g,n (v=0)", (l) => interleave([l.local, l.global, naive(0)(l)])]);
  out.push(["mix interleave l,n,g (v=0)", (l) => interleave([l.local, naive(0)(l), l.global])]);
  for (const nw of [0.25, 0.5, 1]) {
    out.push([
      `mix rrf(hybrid 1, naive ${nw}) (v=0)`,
      (l) =>
        fuse([
          [interleave([l.local, l.global]), 1],
          [naive(0)(l), nw],
        ]),
    ]);
  }
  for (const k of [5, 20]) {
    out.push([
      `mix rrf k=${k} l=1 g=1 n=1 (v=0)`,
      (l) =>
        weightedReciprocalRankFusion(
          [
            { items: l.local, weight: 1 },
            { items: l.global, weight: 1 },
            { items: naive(0)(l), weight: 1 },
          ],
          k,
        ),
    ]);
  }
  for (const [lw, gw, nw, v] of [
    [1, 1, 1, 1],
    [1, 1, 1, 0],
    [2, 1, 1, 0],
    [3, 1, 1, 0],
    [2, 1, 0.5, 0],
    [1, 0.5, 0.5, 0],
  ] as const) {
    out.push([
      `mix l=${lw} g=${gw} n=${nw} (v=${v})`,
      (l) =>
        fuse([
          [l.local, lw],
          [l.global, gw],
          [naive(v)(l), nw],
        ]),
    ]);
  }
  return out;
}

function fuse(lists: [ScoredId[], number][]): ScoredId[] {
  return weightedReciprocalRankFusion(lists.map(([items, weight]): WeightedList => ({ items, weight })));
}

async function listsFor(services: KgragServices, question: string, gold: string[]): Promise<Lists> {
  const options = resolveQueryOptions(services.config.query, {
    mode: "mix",
    contextOnly: true,
    chunkTopK: 40,
  });
  const keywords = await extractKeywords(services, question, []);
  const texts = queryTexts(question, keywords, "mix");
  const embedded = await services.embedder.embed(texts);
  const vectors = new Map(texts.map((t, i) => [t, embedded[i] ?? []]));
  const input: RetrievalInput = {
    services,
    graph: new QueryGraph(services.store, undefined),
    question,
    keywords,
    options,
    vectors,
  };
  const depth = candidateDepth(options);
  const [text, vector, local, global] = await Promise.all([
    services.store.searchChunkText(question, depth),
    services.store.searchVectors("chunks", vectors.get(question) ?? [], depth),
    retrieveLocal(input),
    retrieveGlobal(input),
  ]);
  return {
    gold,
    text,
    vector: vector.filter((h) => h.score >= options.similarityThreshold),
    local: local.chunks,
    global: global.chunks,
  };
}

async function chunkTitles(services: KgragServices, all: Lists[]): Promise<Map<string, string>> {
  const ids = [
    ...new Set(all.flatMap((l) => [...l.text, ...l.vector, ...l.local, ...l.global].map((c) => c.id))),
  ];
  const chunks = await services.store.getChunks(ids);
  const titles = await documentTitles(
    services.store,
    chunks.map((c) => c.docId),
  );
  return new Map(chunks.map((c) => [c.id, titles.get(c.docId) ?? c.docId]));
}

await main();
