import type { VectorIndexStatus } from "../../storage/graph-store.js";
import { recordedModels, type StatusReport, storeContents } from "../../workspace/status.js";
import { openWorkspaceStore } from "../open-store.js";
import { formatTable, truncateToWidth } from "../output.js";
import { printJson } from "../print-json.js";

/**
 * `kgrag status`: the documents with their indexing status, and the graph totals. It opens the
 * store alone and shows the models the workspace was built with, as its writer recorded them.
 */
export async function statusAction(opts: { workspace?: string; json?: boolean }): Promise<void> {
  const { config, workspace, store } = await openWorkspaceStore(opts);
  try {
    const status: StatusReport = {
      workspace,
      storage: config.storage,
      ...((await recordedModels(store)) ?? NOTHING_RECORDED),
      ...(await storeContents(store)),
    };
    if (opts.json) {
      printJson({
        workspace: status.workspace,
        storage: status.storage,
        extractor: status.extractor,
        embedding: status.embedding,
        counts: status.counts,
        ...(status.vectorIndexes ? { vectorIndexes: status.vectorIndexes } : {}),
        documents: status.documents.map((d) => ({
          id: d.id,
          title: d.title,
          status: d.status,
          error: d.error,
          chunks: d.chunkCount,
          path: d.path,
        })),
      });
      return;
    }
    const rows = status.documents.map((d) => [d.id, truncateToWidth(d.title, 40), d.status, d.error ?? ""]);
    process.stdout.write(`${formatTable(["id", "title", "status", "error"], rows)}\n\n`);
    const c = status.counts;
    process.stdout.write(
      `${c.documents} documents (${c.failedDocuments} failed), ${c.chunks} chunks (${c.failedChunks} failed), ` +
        `${c.entities} entities, ${c.relationships} relationships, ${c.communities} communities\n` +
        `storage ${status.storage} at ${status.workspace}; extractor ${status.extractor}; ` +
        `embeddings ${status.embedding.model} (${status.embedding.kind}, ${status.embedding.dimension}-d)\n`,
    );
    if (status.vectorIndexes)
      process.stdout.write(`vectors: ${status.vectorIndexes.map(describeIndex).join("; ")}\n`);
  } finally {
    await store.close();
  }
}

const NOTHING_RECORDED = {
  extractor: "none yet",
  embedding: { model: "none yet", dimension: 0, kind: "none yet" },
} as const;

/** "chunks 120000 hnsw 190 MB, fresh" or "entities 800 exact". */
function describeIndex(index: VectorIndexStatus): string {
  const head = `${index.namespace} ${index.vectors} ${index.kind}`;
  if (index.kind === "exact") return head;
  if (index.bytes === undefined) return `${head}, no file yet (built at the first search)`;
  const segments = index.segments
    ? ` (main file + ${index.segments} segment${index.segments > 1 ? "s" : ""})`
    : "";
  const size = `${(index.bytes / 1e6).toFixed(1)} MB${segments}`;
  const state = index.fresh
    ? "fresh"
    : `stale: ${index.pending ?? 0} changes scored exactly until the next write refreshes it`;
  return `${head} ${size}, ${state}${foldNote(index)}`;
}

function foldNote(index: VectorIndexStatus): string {
  if (index.folding) return "; folding its segments in the background";
  return index.foldError ? `; the last background fold failed: ${index.foldError}` : "";
}
