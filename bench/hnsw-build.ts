/**
 * HNSW construction alone: N seeded clustered vectors (the distribution of bench/scale.ts) added to
 * a usearch index the way the store builds its files, then recall@20 of the store's search recipe
 * (HNSW candidates, oversampled, re-scored exactly) against exact search. Prints CPU time per
 * vector (both build threads counted), which a busy machine inflates less than wall time.
 * With --reachability it also counts the vectors a search for their own vector does not find
 * (usearch's concurrent add can strand a node: vectorIndex.serialBuildBelow).
 * Run: npx tsx bench/hnsw-build.ts [--vectors N] [--dim D] [--expansion-add E] [--connectivity M] [--threads T]
 *        [--serial-below S] [--quantization f16|f32] [--queries Q] [--expansion-search 64,128]
 *        [--reachability true]
 */

import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { VectorIndexSchema } from "../src/config.js";
import { addThreads, newHnswIndex } from "../src/storage/sqlite/ann-file.js";
import { ClusteredVectors, recallAt } from "./support/clustered-vectors.js";

const Args = z.object({
  vectors: z.coerce.number().int().min(100).default(50_000),
  dim: z.coerce.number().int().min(8).default(768),
  expansionAdd: z.coerce.number().int().min(8).optional(),
  connectivity: z.coerce.number().int().min(4).optional(),
  threads: z.coerce.number().int().min(0).optional(),
  serialBelow: z.coerce.number().int().min(0).optional(),
  reachability: z.enum(["true", "false"]).default("false"),
  quantization: z.enum(["f16", "f32"]).optional(),
  queries: z.coerce.number().int().min(1).default(50),
  batch: z.coerce.number().int().min(1).default(2048),
  /** Search expansions to measure recall at, comma-separated. */
  expansionSearch: z
    .string()
    .regex(/^\d+(,\d+)*$/)
    .default("64,128"),
});

function parseArgs(argv: string[]): z.infer<typeof Args> {
  const raw: Record<string, string> = {};
  for (let i = 0; i + 1 < argv.length; i += 2) {
    raw[(argv[i] ?? "").replace(/^--/, "").replace(/-(\w)/g, (_, c: string) => c.toUpperCase())] =
      argv[i + 1] ?? "";
  }
  return Args.parse(raw);
}

const args = parseArgs(process.argv.slice(2));
// The settings given (or the defaults' middle tier) whatever the size: no small- or large-file tier.
const config = VectorIndexSchema.parse({
  smallFileVectors: 0,
  largeFileVectors: 0,
  ...(args.expansionAdd ? { expansionAdd: args.expansionAdd } : {}),
  ...(args.connectivity ? { connectivity: args.connectivity } : {}),
  ...(args.threads !== undefined ? { buildThreads: args.threads } : {}),
  ...(args.serialBelow !== undefined ? { serialBuildBelow: args.serialBelow } : {}),
  ...(args.quantization ? { quantization: args.quantization } : {}),
});
const clusters = Math.max(16, Math.round(Math.sqrt(args.vectors)));
const points = new ClusteredVectors(args.dim, clusters, 7);
const data = new Float32Array(args.vectors * args.dim);
for (let i = 0; i < args.vectors; i++) data.set(points.next(), i * args.dim);
const queries = Array.from({ length: args.queries }, () => points.next());

const index = newHnswIndex(args.dim, config);
const keys = BigUint64Array.from({ length: args.vectors }, (_, i) => BigInt(i));
const cpuBefore = process.cpuUsage();
const started = performance.now();
for (let from = 0; from < args.vectors; from += args.batch) {
  const to = Math.min(args.vectors, from + args.batch);
  index.add(
    keys.subarray(from, to),
    data.subarray(from * args.dim, to * args.dim),
    addThreads(index, config),
  );
}
const wallS = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
const cpuS = (cpu.user + cpu.system) / 1e6;

const dot = (query: Float32Array, row: number) => {
  let sum = 0;
  for (let j = 0; j < args.dim; j++) sum += (query[j] as number) * (data[row * args.dim + j] as number);
  return sum;
};
const top = (rows: number[], query: Float32Array) =>
  rows
    .map((row) => ({ row, score: dot(query, row) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, 20)
    .map((hit) => String(hit.row));
const exact = queries.map((query) =>
  top(
    Array.from({ length: args.vectors }, (_, i) => i),
    query,
  ),
);

/** Recall@20 and search time with the file viewed at another search expansion (not stored in the file). */
function searchWith(expansionSearch: number): {
  expansionSearch: number;
  recallAt20: number;
  searchMsP50: number;
} {
  const viewed = newHnswIndex(args.dim, { ...config, expansionSearch });
  viewed.view(file);
  let recall = 0;
  const times: number[] = [];
  for (const [i, query] of queries.entries()) {
    const t = performance.now();
    const candidates = Array.from(viewed.search(query, 20 * config.oversample, 1).keys, Number);
    times.push(performance.now() - t);
    recall += recallAt(exact[i] ?? [], top(candidates, query)) / queries.length;
  }
  times.sort((a, b) => a - b);
  return {
    expansionSearch,
    recallAt20: Math.round(recall * 1000) / 1000,
    searchMsP50: Math.round((times[Math.floor(times.length / 2)] ?? 0) * 100) / 100,
  };
}

/** Vectors whose own vector does not find them in the top 10 (ties with identical vectors aside). */
function unreachable(): number {
  let missing = 0;
  for (let row = 0; row < args.vectors; row++) {
    const own = data.subarray(row * args.dim, (row + 1) * args.dim);
    const found = index.search(own, 10, 1);
    const tiedAtZero = (found.distances[found.distances.length - 1] ?? 1) < 1e-3;
    if (!tiedAtZero && !Array.from(found.keys, Number).includes(row)) missing += 1;
  }
  return missing;
}

const folder = mkdtempSync(join(tmpdir(), "hnsw-build-"));
const file = join(folder, "index.usearch");
index.save(file);
const searches = args.expansionSearch.split(",").map((value) => searchWith(Number(value)));
rmSync(folder, { recursive: true, force: true });

console.log(
  JSON.stringify({
    vectors: args.vectors,
    dim: args.dim,
    quantization: config.quantization,
    expansionAdd: config.expansionAdd,
    threads: config.buildThreads,
    serialBelow: config.serialBuildBelow,
    ...(args.reachability === "true" ? { unreachable: unreachable() } : {}),
    wallS: Math.round(wallS * 10) / 10,
    vectorsPerS: Math.round(args.vectors / wallS),
    cpuMsPerVector: Math.round((cpuS * 1000 * 1000) / args.vectors) / 1000,
    searches,
    loadAverage: loadavg().map((x) => Math.round(x * 10) / 10),
  }),
);
