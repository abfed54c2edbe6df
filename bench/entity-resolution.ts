/**
 * Entity resolution, measured two ways.
 * 1. Aliases: A Christmas Carol passages indexed through a scripted OpenAI-compatible server that
 *    returns a fixed, hand-written LLM-style extraction per passage (test/fixtures/christmas-carol.ts),
 *    with resolution off, on (the confirmation model always answers "different", so only the
 *    evidence rules merge), and on with an oracle confirmation model (answers from the gold
 *    identities: the upper bound of the confirm stage), each with name evidence only and with the
 *    embedding-similarity candidates added (the offline hashing embedder: no embedding model is
 *    reachable here). Scored against the gold identities: true alias pairs merged, pairs of
 *    different characters wrongly merged, and the true pairs left for a person in `--duplicates`.
 * 2. Retrieval: the HotpotQA development set (offline extractor) indexed with resolution off and on:
 *    entities, merges, communities, and all-gold@8 per mode.
 * Run: npx tsx bench/entity-resolution.ts [--no-hotpotqa] [--no-carol] [--hotpotqa-resolution on|off]
 *      [--similarity-min-score S] (default resolution.similarity.minScoreHashing: the bench embeds
 *      with the offline hashing embedder)
 *      (HotpotQA from $KGRAG_HOTPOTQA or ../shared/datasets/hotpotqa-100 next to the clone)
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatTable } from "../src/cli/output.js";
import { ResolutionSimilaritySchema } from "../src/config.js";
import { createKgrag } from "../src/kgrag.js";
import { entityKey } from "../src/merge/keys.js";
import { readEvalQuestions, runEval } from "../src/query/eval/run-eval.js";
import { QUERY_MODES } from "../src/query/options.js";
import {
  CAROL_IDENTITIES,
  CAROL_PASSAGES,
  carolExtraction,
  scoreCarolAliases,
} from "../test/fixtures/christmas-carol.js";
import {
  type ChatCall,
  lastUserMessage,
  startScriptedOpenAI,
} from "../test/support/scripted-openai-server.js";

const EMPTY = JSON.stringify({ entities: [], relationships: [] });
const REPORT = JSON.stringify({
  title: "Community",
  summary: "Characters of the story.",
  rating: 5,
  rating_explanation: "Central.",
  findings: [{ summary: "People", explanation: "They meet." }],
});

type Confirm = "none" | "different" | "oracle";

const DEFAULT_SIMILARITY = ResolutionSimilaritySchema.parse({});
const minScoreFlag = process.argv.indexOf("--similarity-min-score");
const SIMILARITY_MIN_SCORE =
  minScoreFlag >= 0 ? Number(process.argv[minScoreFlag + 1]) : DEFAULT_SIMILARITY.minScoreHashing;

/** Whether two names are one character in the gold identities. */
function sameCharacter(a: string, b: string): boolean {
  const group = (name: string) =>
    CAROL_IDENTITIES.findIndex((g) => g.some((n) => entityKey(n) === entityKey(name)));
  return group(a) >= 0 && group(a) === group(b);
}

/** The gold answer to a confirmation prompt: same character or not. */
function oracleVerdict(call: ChatCall): string {
  const prompt = lastUserMessage(call);
  const names = [...prompt.matchAll(/^Entity [AB]: (.+) \(/gm)].map((m) => m[1] ?? "");
  const same = names.length === 2 && sameCharacter(names[0]!, names[1]!);
  return JSON.stringify({ same, reason: "gold identities" });
}

async function carolRun(resolution: "on" | "off", confirm: Confirm, similarity: boolean) {
  const root = mkdtempSync(join(tmpdir(), "kgrag-bench-resolve-"));
  for (const p of CAROL_PASSAGES) writeFileSync(join(root, `${p.marker}.txt`), p.text);
  const server = await startScriptedOpenAI({
    chat: (call) => {
      if (call.stage === "extract") return { content: carolExtraction(lastUserMessage(call)) };
      if (call.stage === "resolve") {
        return {
          content: confirm === "oracle" ? oracleVerdict(call) : JSON.stringify({ same: false, reason: "-" }),
        };
      }
      if (call.stage === "report") return { content: REPORT };
      if (call.stage === "summarize") return { content: "A summary." };
      return { content: EMPTY };
    },
  });
  const kgrag = await createKgrag({
    env: { KGRAG_LLM_BASE_URL: server.baseURL, KGRAG_LLM_API_KEY: "k", KGRAG_LLM_MODEL: "scripted" },
    config: {
      workspace: join(root, "ws"),
      entityResolution: resolution,
      resolution: {
        confirmWithModel: confirm !== "none",
        similarity: { enabled: similarity, minScoreHashing: SIMILARITY_MIN_SCORE },
      },
    },
  });
  try {
    await kgrag.index([root]);
    const entities = await kgrag.services.store.listEntities();
    const score = scoreCarolAliases(entities);
    const communities = await kgrag.services.store.listCommunities();
    const duplicates = await kgrag.entities.duplicates();
    return {
      entities: entities.length,
      ...score,
      listed: duplicates.length,
      listedTrue: duplicates.filter((p) => sameCharacter(p.names[0], p.names[1])).length,
      asked: server.count("resolve"),
      communities: communities.length,
    };
  } finally {
    await kgrag.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

async function measureAliases(): Promise<void> {
  const rows: (string | number)[][] = [];
  const variants: [string, "on" | "off", Confirm][] = [
    ["off", "off", "none"],
    ["on, no model confirmation", "on", "none"],
    ["on, model answers 'different'", "on", "different"],
    ["on, oracle confirmation model", "on", "oracle"],
  ];
  for (const [label, resolution, confirm] of variants) {
    for (const similarity of resolution === "on" ? [false, true] : [false]) {
      const r = await carolRun(resolution, confirm, similarity);
      rows.push([
        label,
        similarity ? `names + similarity >= ${SIMILARITY_MIN_SCORE}` : "names",
        r.entities,
        `${r.truePairs} / ${r.possiblePairs}`,
        r.wrongPairs,
        r.asked,
        r.communities,
        `${r.listedTrue} / ${r.listed}`,
        r.wrong.map((p) => p.join(" = ")).join("; "),
      ]);
    }
  }
  console.log(`A Christmas Carol, ${CAROL_PASSAGES.length} passages, scripted LLM extraction`);
  console.log(
    formatTable(
      [
        "resolution",
        "candidates",
        "entities",
        "true alias pairs merged",
        "wrong pairs",
        "resolve calls",
        "communities",
        "true / listed duplicates",
        "wrong",
      ],
      rows,
    ),
  );
}

async function measureHotpotqa(): Promise<void> {
  const data =
    process.env.KGRAG_HOTPOTQA ?? join(import.meta.dirname, "../../../shared/datasets/hotpotqa-100");
  if (!existsSync(join(data, "corpus.jsonl"))) {
    console.log(`\nHotpotQA not found at ${data}; set KGRAG_HOTPOTQA.`);
    return;
  }
  const questions = await readEvalQuestions(join(data, "questions.jsonl"));
  const rows: (string | number)[][] = [];
  const only = process.argv[process.argv.indexOf("--hotpotqa-resolution") + 1];
  const settings = process.argv.includes("--hotpotqa-resolution")
    ? [only as "on" | "off"]
    : (["off", "on"] as const);
  for (const resolution of settings) {
    const root = mkdtempSync(join(tmpdir(), "kgrag-bench-resolve-hotpot-"));
    const kgrag = await createKgrag({
      env: {},
      config: { workspace: join(root, "ws"), entityResolution: resolution },
    });
    try {
      const started = Date.now();
      const summary = await kgrag.index([join(data, "corpus.jsonl")]);
      const seconds = (Date.now() - started) / 1000;
      const merges = (await kgrag.entities.rules()).filter((r) => r.kind === "merge").length;
      const communities = (await kgrag.services.store.listCommunities()).length;
      const report = await runEval(kgrag.services, questions, {
        modes: [...QUERY_MODES],
        ks: [8],
        answers: false,
      });
      const allGold = QUERY_MODES.map((m) => (report.modes[m]?.allGold[8] ?? 0).toFixed(2));
      rows.push([resolution, summary.entities, merges, communities, seconds.toFixed(1), ...allGold]);
      if (resolution === "on") {
        const merged = (await kgrag.services.store.listEntities()).filter((e) => e.aliases?.length);
        console.log(`\nHotpotQA merges (entity <- aliases), first 40 of ${merged.length}:`);
        for (const e of merged.slice(0, 40)) console.log(`  ${e.name} <- ${(e.aliases ?? []).join(" | ")}`);
      }
    } finally {
      await kgrag.close();
      rmSync(root, { recursive: true, force: true });
    }
  }
  console.log(`\nHotpotQA-100 (offline extractor), all-gold@8 per mode, ${questions.length} questions`);
  console.log(
    formatTable(
      [
        "resolution",
        "entities",
        "merge rules",
        "communities",
        "index s",
        ...QUERY_MODES.map((m) => `${m}@8`),
      ],
      rows,
    ),
  );
}

if (!process.argv.includes("--no-carol")) await measureAliases();
if (!process.argv.includes("--no-hotpotqa")) await measureHotpotqa();
