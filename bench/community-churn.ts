/**
 * Community churn of small changes: how many community reports a re-clustering makes stale (their
 * content hash changed, or the community is new: each is an LLM request with a report model),
 * clustering from scratch (as before warm starts) against warm-started from the previous hierarchy.
 *
 * Indexes a corpus offline (communities off), holding back ten documents, then applies in turn:
 * one document updated (a sentence replaced), the ten documents added, one document deleted. After
 * each change both chains re-cluster the same graph, each from its own previous hierarchy (every
 * previous report counted as written), and the bench prints per step: reports re-written, level-0
 * modularity (isolated entities as singletons), clustering CPU time (warm includes the fresh
 * clustering its guard compares with) and how the components were clustered.
 *
 * Run: npx tsx bench/community-churn.ts [--set hotpotqa|wiki-vital] [--docs N]
 * Prints one JSON object on its last line.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clustering } from "../src/community/cluster.js";
import { indexedGraph, modularity } from "../src/community/local-moving.js";
import { projectGraph } from "../src/community/project-graph.js";
import { createKgrag, type Kgrag } from "../src/kgrag.js";
import { clusterCommunities, clusterView } from "../src/pipeline/create-communities.js";
import { loadGraphView } from "../src/pipeline/graph-view.js";
import type { GraphView } from "../src/storage/graph-store.js";
import type { CommunityRecord, CommunityReport, SourceDocumentInput } from "../src/types.js";
import { HOTPOTQA } from "./support/haystack.js";

const SETS: Record<string, string> = {
  hotpotqa: join(HOTPOTQA, "corpus.jsonl"),
  "wiki-vital": join(import.meta.dirname, "datasets/.cache/wiki-vital-en/corpus.jsonl"),
};
const ADDED = 10;

interface Chain {
  previous: CommunityRecord[];
  fingerprints: string[];
}

interface Side {
  communities: number;
  rewritten: number;
  modularity: number;
  cpuMs: number;
  splits: Clustering["splits"];
}

function readCorpus(path: string, limit: number): SourceDocumentInput[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .slice(0, limit)
    .map((line) => {
      const { id, title, text } = JSON.parse(line) as { id: string; title: string; text: string };
      return { id, title, text };
    });
}

/** The document with its last sentence replaced by one naming other things. */
function edited(doc: SourceDocumentInput): SourceDocumentInput {
  const sentences = doc.text.split(/(?<=\.)\s+/);
  const kept = sentences.length > 1 ? sentences.slice(0, -1) : sentences;
  const added = `In 2019 ${doc.title} was the subject of an exhibition at the British Museum in London, curated by Mary Beard.`;
  return { ...doc, text: `${kept.join(" ")} ${added}` };
}

const WRITTEN: CommunityReport = {
  title: "written",
  summary: "",
  rating: 0,
  ratingExplanation: "",
  findings: [],
  markdown: "",
  method: "llm",
};

/** Re-clusters `view` from the chain's previous hierarchy (warm) or from scratch. */
function recluster(kgrag: Kgrag, view: GraphView, chain: Chain, warm: boolean): Side {
  const { config } = kgrag.services;
  const start = process.cpuUsage();
  const clustering = clusterView(
    config,
    view,
    warm && chain.previous.length > 0
      ? {
          previous: { communities: chain.previous, fingerprints: chain.fingerprints },
          tolerance: config.community.warmStartTolerance,
        }
      : undefined,
  );
  const used = process.cpuUsage(start);
  const { communities } = clusterCommunities(config, view, chain.previous, clustering);
  const rewritten = communities.filter((c) => c.report === null).length;
  // Every report is written before the next change.
  chain.previous = communities.map((c) => ({ ...c, report: WRITTEN, reportHash: c.contentHash }));
  chain.fingerprints = clustering.fingerprints;
  return {
    communities: communities.length,
    rewritten,
    modularity: levelZeroModularity(view, communities),
    cpuMs: Math.round((used.user + used.system) / 100) / 10,
    splits: clustering.splits,
  };
}

function levelZeroModularity(view: GraphView, communities: CommunityRecord[]): number {
  const graph = projectGraph(view.entities, view.relationships);
  const keys = graph.nodes();
  const label = new Map<string, number>();
  communities
    .filter((c) => c.level === 0)
    .forEach((c, i) => {
      for (const key of c.entityKeys) label.set(key, i);
    });
  const labels = keys.map((key, i) => label.get(key) ?? -1 - i);
  return Math.round(modularity(indexedGraph(graph, keys), labels) * 10000) / 10000;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const set = args.includes("--set") ? (args[args.indexOf("--set") + 1] as string) : "hotpotqa";
  const path = SETS[set];
  if (!path) throw new Error(`--set must be one of ${Object.keys(SETS).join(", ")}`);
  const limit = args.includes("--docs") ? Number(args[args.indexOf("--docs") + 1]) : 1000;
  const corpus = readCorpus(path, limit);
  const base = corpus.slice(0, corpus.length - ADDED);
  const held = corpus.slice(corpus.length - ADDED);
  const root = mkdtempSync(join(tmpdir(), "kgrag-community-churn-"));
  const kgrag = await createKgrag({
    env: {},
    config: { workspace: join(root, "ws"), community: { enabled: false } },
  });
  try {
    await kgrag.index(base);
    const fresh: Chain = { previous: [], fingerprints: [] };
    const warm: Chain = { previous: [], fingerprints: [] };
    const view0 = await loadGraphView(kgrag.services.store);
    const initial = recluster(kgrag, view0, fresh, false);
    recluster(kgrag, view0, warm, false);
    const changes: [string, () => Promise<unknown>][] = [
      [
        "update one document",
        () => kgrag.index([edited(base[Math.floor(base.length / 2)] as SourceDocumentInput)]),
      ],
      [`add ${ADDED} documents`, () => kgrag.index(held)],
      ["delete one document", () => kgrag.deleteDocuments([(base[1] as SourceDocumentInput).id])],
    ];
    const steps = [];
    for (const [step, change] of changes) {
      await change();
      const view = await loadGraphView(kgrag.services.store);
      const before = recluster(kgrag, view, fresh, false);
      const after = recluster(kgrag, view, warm, true);
      console.log(
        `${step}: reports re-written ${before.rewritten} -> ${after.rewritten} of ${after.communities}; ` +
          `level-0 modularity fresh ${before.modularity} / warm ${after.modularity}; ` +
          `clustering CPU ${before.cpuMs} ms fresh / ${after.cpuMs} ms warm; splits ${JSON.stringify(after.splits)}`,
      );
      steps.push({ step, fresh: before, warm: after });
    }
    const view = await loadGraphView(kgrag.services.store);
    console.log(
      JSON.stringify({
        set,
        documents: corpus.length,
        entities: view.entities.length,
        relationships: view.relationships.length,
        initialCommunities: initial.communities,
        tolerance: kgrag.services.config.community.warmStartTolerance,
        steps,
      }),
    );
  } finally {
    await kgrag.close();
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
