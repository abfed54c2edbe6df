/**
 * searchVectors latency on the embedded store: 6,000 random 512-d vectors, exact cosine.
 * Run: npx tsx bench/sqlite-vectors.ts
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { openSqliteStore } from "../src/storage/sqlite/sqlite-store.js";
import type { VectorItem } from "../src/types.js";

const COUNT = 6_000;
const DIM = 512;
const QUERIES = 300;
const TOP_K = 40;

/** Deterministic PRNG (mulberry32) so runs are comparable. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomVector(next: () => number): number[] {
  return Array.from({ length: DIM }, () => next() * 2 - 1);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

interface Latency {
  p50: number;
  p95: number;
  /** CPU time of the median query: unlike wall time, it does not grow when other processes share the cores. */
  cpuP50: number;
}

async function timeQueries(run: () => Promise<unknown>): Promise<Latency> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    await run();
    const used = process.cpuUsage(cpuStart);
    wall.push(performance.now() - start);
    cpu.push((used.user + used.system) / 1000);
  }
  const ascending = (a: number, b: number) => a - b;
  wall.sort(ascending);
  cpu.sort(ascending);
  return { p50: percentile(wall, 50), p95: percentile(wall, 95), cpuP50: percentile(cpu, 50) };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "kgrag-bench-vectors-"));
  const store = await openSqliteStore(dir);
  try {
    const next = random(42);
    const items: VectorItem[] = Array.from({ length: COUNT }, (_, i) => ({
      id: `v${i}`,
      vector: randomVector(next),
      textHash: `h${i}`,
    }));

    let start = performance.now();
    await store.upsertVectors("chunks", items);
    const upsertMs = performance.now() - start;

    start = performance.now();
    await store.searchVectors("chunks", randomVector(next), TOP_K);
    const coldMs = performance.now() - start;

    const all = await timeQueries(() => store.searchVectors("chunks", randomVector(next), TOP_K));
    const allow = new Set(items.filter((_, i) => i % 10 === 0).map((item) => item.id));
    const filtered = await timeQueries(() => store.searchVectors("chunks", randomVector(next), TOP_K, allow));

    const ms = (value: number) => `${value.toFixed(2)} ms`;
    console.log(`sqlite vectors: ${COUNT} x ${DIM}-d, top ${TOP_K}, ${QUERIES} queries`);
    console.log(`  upsert (one transaction): ${ms(upsertMs)}`);
    console.log(`  first search (loads the matrix): ${ms(coldMs)}`);
    const line = (l: Latency) => `p50 ${ms(l.p50)}, p95 ${ms(l.p95)} (cpu p50 ${ms(l.cpuP50)})`;
    console.log(`  search ${line(all)}`);
    console.log(`  search with allow (${allow.size} ids) ${line(filtered)}`);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
