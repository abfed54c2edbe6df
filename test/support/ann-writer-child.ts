/**
 * Child process for the kill -9 test: writes batches of clustered vectors into a workspace with an
 * HNSW index, refreshing the index file after every batch, and prints "batch <n>" after each
 * commit until it is killed. Run with `node --import tsx test/support/ann-writer-child.ts DIR`.
 */
import { ClusteredVectors } from "../../bench/support/clustered-vectors.js";
import { VectorIndexSchema } from "../../src/config.js";
import { openSqliteStore } from "../../src/storage/sqlite/sqlite-store.js";

const [workspace] = process.argv.slice(2);
if (!workspace) throw new Error("usage: ann-writer-child.ts WORKSPACE");
const store = await openSqliteStore(workspace, {
  vectorIndex: VectorIndexSchema.parse({ kind: "ann", minVectors: 0 }),
});
const points = new ClusteredVectors(16, 8, 7);
for (let batch = 0; ; batch++) {
  const items = Array.from({ length: 200 }, (_, i) => ({
    id: `v${batch}-${i}`,
    textHash: "h",
    vector: Array.from(points.next()),
  }));
  await store.upsertVectors("chunks", items);
  await store.refreshIndexes();
  process.stdout.write(`batch ${batch}\n`);
}
