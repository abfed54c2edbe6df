/**
 * What keeping a Neo4j vector index costs the server: writes the same vectors (random, 512 floats,
 * as 32-bit lists through db.create.setNodeVectorProperty) under one label per variant and reports
 * the JVM's CPU seconds per variant, and the index's recall@10 against exact cosine (100 queries): index settings (HNSW m, ef_construction, quantization), index
 * kept in place or created after the writes, vectors per commit, and where the vectors go: new
 * nodes, existing nodes with or without a full-text index over their text (as kgrag's Entity
 * nodes have), dedicated vector nodes, or existing relationships in a full-text index (RELATED).
 * Starts the test Neo4j (test/neo4j-server/) and stops it after.
 * Every variant runs twice (the first pass warms the JVM up) and the second pass is reported.
 * Run: npx tsx bench/neo4j-vector-index.ts [--vectors 6000] [--dimension 512] [--random] [--only a,b]
 * (--only: the variants whose name contains one of the parts)
 * (vectors of HotpotQA-100's sentences from the offline hashing embedder, or with --random uniform
 * random ones).
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import neo4j from "neo4j-driver";
import { formatTable } from "../src/cli/output.js";
import { HashingEmbedder } from "../src/embedding/hashing-embedder.js";
import { startTestNeo4j } from "../test/neo4j-server/test-neo4j.js";
import { HOTPOTQA } from "./support/haystack.js";
import { runningProcessCpuSeconds } from "./support/process-cpu.js";

/**
 * Where the vectors go: "fresh" nodes created with their vector (the original variants); "indexed
 * nodes" or "plain nodes" that exist before (holding text, found by a range index on their id; the
 * first also in a full-text index over that text, as kgrag's Entity nodes are); "vector nodes"
 * beside such full-text indexed nodes (a dedicated node per vector, created with it); "indexed
 * edges": existing relationships in a full-text index, as kgrag's RELATED edges are.
 */
type Target = "fresh" | "indexed nodes" | "plain nodes" | "vector nodes" | "indexed edges";

interface Variant {
  name: string;
  /** Index config besides dimension and similarity; undefined: no index until after the writes. */
  indexConfig?: Record<string, unknown>;
  createAfter?: Record<string, unknown>;
  perCommit: number;
  target?: Target;
}

const VARIANTS: Variant[] = [
  { name: "index in place, 2000 per commit", indexConfig: {}, perCommit: 2000 },
  { name: "index in place, 1000 per commit", indexConfig: {}, perCommit: 1000 },
  { name: "index in place, 500 per commit", indexConfig: {}, perCommit: 500 },
  { name: "index in place, 350 per commit", indexConfig: {}, perCommit: 350 },
  { name: "index in place, 250 per commit", indexConfig: {}, perCommit: 250 },
  { name: "index created after the writes", createAfter: {}, perCommit: 2000 },
  {
    name: "in place, 500 per commit, quantization off",
    indexConfig: { "vector.quantization.enabled": false },
    perCommit: 500,
  },
  {
    name: "in place, 500 per commit, ef_construction 32",
    indexConfig: { "vector.hnsw.ef_construction": neo4j.int(32) },
    perCommit: 500,
  },
  {
    name: "in place, 1000 per commit, ef_construction 32",
    indexConfig: { "vector.hnsw.ef_construction": neo4j.int(32) },
    perCommit: 1000,
  },
  {
    name: "in place, 1000 per commit, ef_construction 50",
    indexConfig: { "vector.hnsw.ef_construction": neo4j.int(50) },
    perCommit: 1000,
  },
  {
    name: "1000 per commit on full-text indexed nodes",
    indexConfig: {},
    perCommit: 1000,
    target: "indexed nodes",
  },
  { name: "1000 per commit on plain nodes", indexConfig: {}, perCommit: 1000, target: "plain nodes" },
  // What kgrag now does for a namespace ranked in memory: no vector index at all.
  {
    name: "1000 per commit on full-text indexed nodes without index",
    perCommit: 1000,
    target: "indexed nodes",
  },
  {
    name: "1000 per commit on dedicated vector nodes",
    indexConfig: {},
    perCommit: 1000,
    target: "vector nodes",
  },
  {
    name: "1000 per commit on full-text indexed edges",
    indexConfig: {},
    perCommit: 1000,
    target: "indexed edges",
  },
  // Names without commas, so --only can pick them: "1000 fresh" picks this set.
  { name: "1000 fresh default", indexConfig: {}, perCommit: 1000 },
  {
    name: "1000 fresh quantization off",
    indexConfig: { "vector.quantization.enabled": false },
    perCommit: 1000,
  },
  { name: "1000 fresh m 8", indexConfig: { "vector.hnsw.m": neo4j.int(8) }, perCommit: 1000 },
  { name: "1000 fresh m 32", indexConfig: { "vector.hnsw.m": neo4j.int(32) }, perCommit: 1000 },
];

/** The variants whose name contains one of --only's comma-separated parts (all without it). */
function chosenVariants(): Variant[] {
  const args = process.argv.slice(2);
  const only = args.includes("--only") ? (args[args.indexOf("--only") + 1] ?? "").split(",") : [];
  return only.length === 0 ? VARIANTS : VARIANTS.filter((v) => only.some((part) => v.name.includes(part)));
}

function option(name: string, fallback: number): number {
  const args = process.argv.slice(2);
  return args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;
}

/** The JVM's CPU seconds once background work (index merges) has stopped using it. */
async function settledCpu(pid: number): Promise<number> {
  let last = runningProcessCpuSeconds(pid);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const now = runningProcessCpuSeconds(pid);
    if (now - last < 0.1) return now;
    last = now;
  }
}

/** The corpus's sentences (as many as asked, repeated if short). */
function sentences(count: number): string[] {
  const all = readFileSync(join(HOTPOTQA, "corpus.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .flatMap((line) => (JSON.parse(line) as { text: string }).text.split(/(?<=\.)\s+/));
  return Array.from({ length: count }, (_, i) => `${all[i % all.length]} ${i}`);
}

const QUERIES = 100;
const TOP_K = 10;

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] ?? 0) * (b[i] ?? 0);
    na += (a[i] ?? 0) ** 2;
    nb += (b[i] ?? 0) ** 2;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

function exactTop(vectors: { id: number; vector: number[] }[], query: number[], k: number): Set<number> {
  const scored = vectors.map((v) => ({ id: v.id, score: cosine(v.vector, query) }));
  scored.sort((a, b) => b.score - a.score);
  return new Set(scored.slice(0, k).map((s) => s.id));
}

/** The share of the exact top-k the index returns for each query (its own top k). */
async function indexRecall(
  session: Session,
  index: string,
  queries: number[][],
  exact: Set<number>[],
  onEdges: boolean,
): Promise<number> {
  let found = 0;
  for (const [q, query] of queries.entries()) {
    const result = await session.run(
      onEdges
        ? "CALL db.index.vector.queryRelationships($index, $k, $query) YIELD relationship RETURN relationship.id AS id"
        : "CALL db.index.vector.queryNodes($index, $k, $query) YIELD node RETURN node.id AS id",
      { index, k: neo4j.int(TOP_K), query },
    );
    for (const record of result.records) if (exact[q]?.has(Number(record.get("id")))) found++;
  }
  return found / (queries.length * TOP_K);
}

function randomVector(dimension: number): number[] {
  return Array.from({ length: dimension }, () => Math.random() * 2 - 1);
}

type Session = ReturnType<ReturnType<typeof neo4j.driver>["session"]>;

/** The records the vectors go to, made before the measured writes (their CPU is not counted). */
async function prepareTarget(
  session: Session,
  target: Target,
  label: string,
  texts: string[],
): Promise<void> {
  if (target === "fresh") return;
  const edges = target === "indexed edges";
  const record = edges ? `()-[n:${label}]-()` : `(n:${label})`;
  await session.run(`CREATE INDEX ${label}_id FOR ${record} ON (n.id)`);
  if (target !== "plain nodes") {
    await session.run(`CREATE FULLTEXT INDEX ${label}_text FOR ${record} ON EACH [n.text]`);
  }
  if (target === "vector nodes") {
    await session.run(`CREATE CONSTRAINT ${label}_vector_id FOR (v:${label}Vector) REQUIRE v.id IS UNIQUE`);
  }
  await session.run("CALL db.awaitIndexes(600)");
  const rows = texts.map((text, id) => ({ id, text }));
  const create = edges
    ? `UNWIND $rows AS row CREATE (:${label}End)-[:${label} {id: row.id, text: row.text}]->(:${label}End)`
    : `UNWIND $rows AS row CREATE (:${label} {id: row.id, text: row.text})`;
  for (let at = 0; at < rows.length; at += 5000) {
    await session.executeWrite((tx) => tx.run(create, { rows: rows.slice(at, at + 5000) }));
  }
}

/** The label (or relationship type) the vector index covers. */
function indexedLabel(target: Target, label: string): string {
  return target === "vector nodes" ? `${label}Vector` : label;
}

/** The measured statement: stores one commit's {id, vector} rows. */
function writeStatement(target: Target, label: string): string {
  const set = "CALL db.create.setNodeVectorProperty(n, 'embedding', row.vector)";
  switch (target) {
    case "fresh":
      return `UNWIND $rows AS row CREATE (n:${label} {id: row.id}) WITH n, row ${set}`;
    case "vector nodes":
      return `UNWIND $rows AS row MERGE (n:${label}Vector {id: row.id}) WITH n, row ${set}`;
    case "indexed edges":
      return `UNWIND $rows AS row MATCH ()-[n:${label} {id: row.id}]->()
        WITH n, row CALL db.create.setRelationshipVectorProperty(n, 'embedding', row.vector)`;
    default:
      return `UNWIND $rows AS row MATCH (n:${label} {id: row.id}) WITH n, row ${set}`;
  }
}

async function main(): Promise<void> {
  const count = option("--vectors", 6000);
  const dimension = option("--dimension", 512);
  const server = await startTestNeo4j((line) => console.error(line), { heapMb: 2048, pageCacheMb: 2048 });
  const driver = neo4j.driver(server.uri, neo4j.auth.basic(server.username, server.password));
  const rows: string[][] = [];
  try {
    const session = driver.session();
    const texts = sentences(count + QUERIES);
    const all = process.argv.includes("--random")
      ? Array.from({ length: count + QUERIES }, () => randomVector(dimension))
      : await new HashingEmbedder(dimension).embed(texts);
    const vectors = all.slice(0, count).map((vector, i) => ({ id: i, vector }));
    const queries = all.slice(count);
    const exact = queries.map((query) => exactTop(vectors, query, TOP_K));
    const chosen = chosenVariants();
    const passes = [...chosen, ...chosen];
    for (const [i, variant] of passes.entries()) {
      const label = `V${i}`;
      const index = `bench_vectors_${i}`;
      const target = variant.target ?? "fresh";
      const onEdges = target === "indexed edges";
      const indexed = indexedLabel(target, label);
      const createIndex = async (config: Record<string, unknown>) => {
        await session.run(
          `CREATE VECTOR INDEX ${index} FOR ${onEdges ? `()-[n:${indexed}]-()` : `(n:${indexed})`}
           ON n.embedding OPTIONS {indexConfig: $config}`,
          {
            config: {
              "vector.dimensions": neo4j.int(dimension),
              "vector.similarity_function": "cosine",
              ...config,
            },
          },
        );
        await session.run(`CALL db.awaitIndex($index, 600)`, { index });
      };
      await prepareTarget(session, target, label, texts.slice(0, count));
      if (variant.indexConfig) await createIndex(variant.indexConfig);
      const start = await settledCpu(server.pid);
      const statement = writeStatement(target, label);
      for (let at = 0; at < count; at += variant.perCommit) {
        await session.executeWrite((tx) =>
          tx.run(statement, { rows: vectors.slice(at, at + variant.perCommit) }),
        );
      }
      const written = await settledCpu(server.pid);
      if (variant.createAfter) await createIndex(variant.createAfter);
      const end = await settledCpu(server.pid);
      const hasIndex = variant.indexConfig ?? variant.createAfter;
      const recall = hasIndex ? (await indexRecall(session, index, queries, exact, onEdges)).toFixed(3) : "-";
      if (i >= chosen.length) {
        rows.push([variant.name, (written - start).toFixed(1), (end - start).toFixed(1), recall]);
      }
      console.error(`${variant.name}: ${(end - start).toFixed(1)} s (load ${loadavg()[0]?.toFixed(1)})`);
    }
    await session.close();
  } finally {
    await driver.close();
    await server.stop();
  }
  console.log(`\n${count} vectors of ${dimension} floats, JVM CPU seconds\n`);
  console.log(formatTable(["variant", "writes", "writes + index online", `recall@${TOP_K}`], rows));
}

await main();
