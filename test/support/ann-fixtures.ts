import type { ClusteredVectors } from "../../bench/support/clustered-vectors.js";
import { type VectorIndexConfig, VectorIndexSchema } from "../../src/config.js";
import { openSqliteStore, type SqliteGraphStore } from "../../src/storage/sqlite/sqlite-store.js";
import type { VectorItem } from "../../src/types.js";

/** `count` stored vectors from a clustered set, with ids `${prefix}0`, `${prefix}1`... */
export function clusteredItems(points: ClusteredVectors, count: number, prefix = "v"): VectorItem[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${i}`,
    textHash: "h",
    vector: Array.from(points.next()),
  }));
}

/**
 * A store that searches every namespace through HNSW files whatever their size, its folds kept in
 * the writer (background folds have their own tests: ann-background-fold).
 */
export function openAnnStore(
  workspace: string,
  settings: Partial<VectorIndexConfig> = {},
): Promise<SqliteGraphStore> {
  return openSqliteStore(workspace, {
    vectorIndex: VectorIndexSchema.parse({
      kind: "ann",
      minVectors: 0,
      foldInBackground: false,
      ...settings,
    }),
  });
}
