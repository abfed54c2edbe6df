/**
 * Sweeps the ways naive, hybrid and mix combine their passage lists on the development sets without
 * re-running the graph walks per setting: each question's ranked lists (BM25 chunks, local's and
 * global's passages, and the sentence-level BM25 of Small-to-Big) are computed once and cached in
 * the set's workspace (sweep-lists.json; --fresh-lists recomputes them), then every combination is
 * scored in memory at passage (document) level, as bench/retrieval-sets.ts scores the modes. Used
 * to choose query.fusion and the combination of the modes.
 * Needs the workspaces bench/retrieval-sets.ts builds (run it once first).
 * Run: npx tsx bench/fusion-sweep.ts [--sets a,b] [--fresh-lists]
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { formatTable } from "../src/cli/output.js";
import { createKgrag } from "../src/kgrag.js";
import { documentTitles } from "../src/query/context/references.js";
import { mean, scoreRetrieval } from "../src/query/eval/metrics.js";
import { readEvalQuestions } from "../src/query/eval/run-eval.js";
import {
  interleave,
  normalizedScoreFusion,
  type WeightedList,
  weightedReciprocalRankFusion,
} from "../src/query/fusion.js";
import { QueryGraph } from "../src/query/graph/query-graph.js";
import { extractKeywords } from "../src/query/keywords.js";
import { retrieveGlobal } from "../src/query/modes/global.js";
import { retrieveLocal } from "../src/query/modes/local.js";
import { agreedLead, withLead } from "../src/query/modes/passage-evidence.js";
import { queryTexts, type RetrievalInput } from "../src/query/modes/retrieval.js";
import { resolveQueryOptions } from "../src/query/options.js";
import type { KgragServices } from "../src/services.js";
import type { ScoredId } from "../src/types.js";
import { DEV_SETS, KS, setWorkspace } from "./support/dev-sets.js";

const SETS = DEV_SETS;
/** Passages kept per list: deeper than any K scored. */
const DEPTH = 40;

interface Lists {
  gold: string[];
  type: string;
  text: ScoredId[];
  units: ScoredId[];
  local: ScoredId[];
  global: ScoredId[];
  /** BM25 of the question over the passages local and global found (none of the others). */
  textInGraph: ScoredId[];
}

interface SetLists {
  questions: Lists[];
  titles: Record<string, string>;
}

type Variant = [name: string, rank: (l: Lists) => ScoredId[]];

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const sets = args.includes("--sets")
    ? (args[args.indexOf("--sets") + 1] ?? "").split(",")
    : Object.keys(SETS);
  const rows: string[][] = [];
  for (const set of sets) {
    const lists = await setLists(set, args.includes("--fresh-lists"));
    if (!lists) continue;
    for (const [name, rank] of variants()) {
      const scores = lists.questions.map((l) =>
        scoreRetrieval(
          [
            ...new Set(
              rank(l)
                .slice(0, DEPTH)
                .map((c) => lists.titles[c.id] ?? c.id),
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
  }
}

/** The cached lists of every question of a set, computed once from its workspace. */
async function setLists(set: string, fresh: boolean): Promise<SetLists | undefined> {
  const dir = SETS[set] ?? "";
  const workspace = setWorkspace(set);
  const cache = join(workspace, "sweep-lists.json");
  if (!fresh && existsSync(cache)) return JSON.parse(await readFile(cache, "utf8")) as SetLists;
  if (!existsSync(join(workspace, "kgrag.sqlite"))) {
    console.log(`${set}: no workspace at ${workspace} (run bench/retrieval-sets.ts first)`);
    return undefined;
  }
  const kgrag = await createKgrag({ env: {}, config: { workspace } });
  try {
    const questions = await readEvalQuestions(join(dir, "questions.jsonl"));
    const all: Lists[] = [];
    for (const q of questions) {
      all.push({
        gold: q.gold_titles,
        type: q.type ?? "all",
        ...(await listsFor(kgrag.services, q.question)),
      });
    }
    const lists: SetLists = { questions: all, titles: await chunkTitles(kgrag.services, all) };
    await writeFile(cache, JSON.stringify(lists));
    return lists;
  } finally {
    await kgrag.close();
  }
}

function variants(): Variant[] {
  const out: Variant[] = [
    ["bm25 (naive)", (l) => l.text],
    ["bm25 sentences", (l) => l.units],
    ["local", (l) => l.local],
    ["global", (l) => l.global],
  ];
  for (const w of [0.5, 1]) {
    out.push([
      `naive + sentences rrf ${w}`,
      (l) =>
        rrf([
          [l.text, 1],
          [l.units, w],
        ]),
    ]);
  }
  out.push(["hybrid interleave l,g", (l) => interleave([l.local, l.global])]);
  out.push([
    "hybrid rrf l,g",
    (l) =>
      rrf([
        [l.local, 1],
        [l.global, 1],
      ]),
  ]);
  out.push([
    "hybrid score l,g",
    (l) =>
      normalized([
        [l.local, 1],
        [l.global, 1],
      ]),
  ]);
  out.push([
    "hybrid rerank rrf(il(l,g), bm25)",
    (l) =>
      rrf([
        [interleave([l.local, l.global]), 1],
        [l.textInGraph, 1],
      ]),
  ]);
  out.push(["hybrid il(l,g,bm25-in-graph)", (l) => interleave([l.local, l.global, l.textInGraph])]);
  out.push(["hybrid il(l,bm25-in-graph,g)", (l) => interleave([l.local, l.textInGraph, l.global])]);
  out.push(["mix interleave l,g,n", (l) => interleave([l.local, l.global, l.text])]);
  out.push(["mix interleave l,n,g", (l) => interleave([l.local, l.text, l.global])]);
  out.push([
    "mix rrf l,g,n",
    (l) =>
      rrf([
        [l.local, 1],
        [l.global, 1],
        [l.text, 1],
      ]),
  ]);
  out.push([
    "mix score l,g,n",
    (l) =>
      normalized([
        [l.local, 1],
        [l.global, 1],
        [l.text, 1],
      ]),
  ]);
  out.push([
    "mix score l,n",
    (l) =>
      normalized([
        [l.local, 1],
        [l.text, 1],
      ]),
  ]);
  out.push([
    "mix rrf(l,n) + g",
    (l) =>
      interleave([
        rrf([
          [l.local, 1],
          [l.text, 1],
        ]),
        l.global,
      ]),
  ]);
  const smallToBig = (l: Lists) =>
    rrf([
      [l.text, 1],
      [l.units, 1],
    ]);
  out.push(["mix il(l,g,n+sentences)", (l) => interleave([l.local, l.global, smallToBig(l)])]);
  out.push(["mix il(l,n+sentences,g)", (l) => interleave([l.local, smallToBig(l), l.global])]);
  out.push(["mix il(n+sentences,l,g)", (l) => interleave([smallToBig(l), l.local, l.global])]);
  for (const k of [5, 20]) {
    out.push([
      `mix rrf k=${k} l,g,n`,
      (l) =>
        rrf(
          [
            [l.local, 1],
            [l.global, 1],
            [l.text, 1],
          ],
          k,
        ),
    ]);
  }
  // The first passage where BM25 and a walk agree on it (query.fusion.agreedLeadDepth; 0 = before).
  for (const depth of [0, 2, 3, 5, 10, 40]) {
    const walks = (l: Lists) => ({ local: l.local, global: l.global });
    out.push([
      `hybrid agreed lead ${depth}`,
      (l) =>
        withLead(agreedLead(l.textInGraph, walks(l), depth), interleave([l.local, l.textInGraph, l.global])),
    ]);
    out.push([
      `mix agreed lead ${depth}`,
      (l) => withLead(agreedLead(l.text, walks(l), depth), interleave([l.local, l.text, l.global])),
    ]);
  }
  // BM25's head leads (when a walk ranks it in its first 10) if it outscores BM25's second by the margin; else the agreed lead.
  for (const margin of [0.1, 0.25, 0.5, 1, 2]) {
    const walks = (l: Lists) => ({ local: l.local, global: l.global });
    const clearLead = (byText: ScoredId[], l: Lists) => {
      const [first, second] = byText;
      const clear = first && (!second || first.score >= (1 + margin) * second.score);
      const supported =
        first && [l.local, l.global].some((w) => w.slice(0, 10).some((c) => c.id === first.id));
      return clear && supported ? first : agreedLead(byText, walks(l), 10);
    };
    out.push([
      `hybrid clear lead ${margin}`,
      (l) => withLead(clearLead(l.textInGraph, l), interleave([l.local, l.textInGraph, l.global])),
    ]);
    out.push([
      `mix clear lead ${margin}`,
      (l) => withLead(clearLead(l.text, l), interleave([l.local, l.text, l.global])),
    ]);
  }
  // When the question's BM25 does not list local's head at all, the walk's head has no word of the question behind it.
  const unsupported = (byText: ScoredId[], l: Lists) => {
    const head = l.local[0];
    return head !== undefined && !byText.some((c) => c.id === head.id);
  };
  const inWalk = (l: Lists, id: string | undefined, depth: number) =>
    [l.local, l.global].some((w) => w.slice(0, depth).some((c) => c.id === id));
  for (const [name, depth] of [
    ["walked", DEPTH],
    ["any", -1],
  ] as const) {
    const lead = (byText: ScoredId[], l: Lists) => {
      const agreed = agreedLead(byText, { local: l.local, global: l.global }, 10);
      if (agreed || !unsupported(byText, l)) return agreed;
      const head = byText[0];
      return depth < 0 || inWalk(l, head?.id, depth) ? head : undefined;
    };
    out.push([
      `hybrid unsupported local head: text head (${name})`,
      (l) => withLead(lead(l.textInGraph, l), interleave([l.local, l.textInGraph, l.global])),
    ]);
    out.push([
      `mix unsupported local head: text head (${name})`,
      (l) => withLead(lead(l.text, l), interleave([l.local, l.text, l.global])),
    ]);
  }
  const textFirst = (byText: ScoredId[], l: Lists) =>
    withLead(
      agreedLead(byText, { local: l.local, global: l.global }, 10),
      unsupported(byText, l)
        ? interleave([byText, l.local, l.global])
        : interleave([l.local, byText, l.global]),
    );
  out.push(["hybrid unsupported local head: text first", (l) => textFirst(l.textInGraph, l)]);
  out.push(["mix unsupported local head: text first", (l) => textFirst(l.text, l)]);
  // hybrid, and when local's head has no word of the question behind it, the corpus's BM25 head leads
  // (a passage the walks may not have found).
  out.push([
    "hybrid unsupported local head: corpus text head first",
    (l) => {
      const order = textFirst(l.textInGraph, l);
      return unsupported(l.textInGraph, l) ? withLead(l.text[0], order) : order;
    },
  ]);
  // hybrid whose question order also holds the corpus's first n BM25 passages (one BM25, so scores compare).
  for (const n of [1, 2, 3, 5, 10]) {
    const withCorpusHead = (l: Lists) => {
      const seen = new Set<string>();
      return [...l.textInGraph, ...l.text.slice(0, n)]
        .sort((a, b) => b.score - a.score)
        .filter((c) => !seen.has(c.id) && seen.add(c.id));
    };
    out.push([`hybrid text order + corpus head ${n}`, (l) => textFirst(withCorpusHead(l), l)]);
  }
  return out;
}

function rrf(lists: [ScoredId[], number][], k?: number): ScoredId[] {
  return weightedReciprocalRankFusion(
    lists.map(([items, weight]): WeightedList => ({ items, weight })),
    k,
  );
}

function normalized(lists: [ScoredId[], number][]): ScoredId[] {
  return normalizedScoreFusion(lists.map(([items, weight]): WeightedList => ({ items, weight })));
}

async function listsFor(
  services: KgragServices,
  question: string,
): Promise<Pick<Lists, "text" | "units" | "local" | "global" | "textInGraph">> {
  const options = resolveQueryOptions(services.config.query, {
    mode: "mix",
    contextOnly: true,
    chunkTopK: DEPTH,
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
  const { store } = services;
  const [text, units, local, global] = await Promise.all([
    store.searchChunkText(question, DEPTH),
    store.searchChunkUnits ? store.searchChunkUnits(question, DEPTH) : Promise.resolve([]),
    retrieveLocal(input),
    retrieveGlobal(input),
  ]);
  const found = new Set([...local.chunks, ...global.chunks].map((c) => c.id));
  const textInGraph = await store.searchChunkText(question, DEPTH * 2, found);
  return { text, units, local: local.chunks, global: global.chunks, textInGraph };
}

async function chunkTitles(services: KgragServices, all: Lists[]): Promise<Record<string, string>> {
  const ids = [
    ...new Set(all.flatMap((l) => [...l.text, ...l.units, ...l.local, ...l.global].map((c) => c.id))),
  ];
  const chunks = await services.store.getChunks(ids);
  const titles = await documentTitles(
    services.store,
    chunks.map((c) => c.docId),
  );
  return Object.fromEntries(chunks.map((c) => [c.id, titles.get(c.docId) ?? c.docId]));
}

await main();
