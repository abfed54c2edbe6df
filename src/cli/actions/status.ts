import type { Neo4jVectorIndexState, VectorIndexStatus } from "../../storage/graph-store.js";
import { shownDocumentStatus } from "../../workspace/document-status.js";
import {
  type IndexRunReport,
  indexRunReport,
  recordedModels,
  type StatusReport,
  storeContents,
} from "../../workspace/status.js";
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
    const contents = await storeContents(store);
    const status: StatusReport = {
      workspace,
      storage: config.storage,
      ...((await recordedModels(store)) ?? NOTHING_RECORDED),
      ...contents,
      indexRun: indexRunReport(config.storage, workspace, contents.documents),
    };
    if (opts.json) {
      printJson({
        workspace: status.workspace,
        storage: status.storage,
        extractor: status.extractor,
        embedding: status.embedding,
        counts: status.counts,
        indexRun: status.indexRun,
        communitiesStale: status.communitiesStale,
        ...(status.vectorIndexes ? { vectorIndexes: status.vectorIndexes } : {}),
        documents: status.documents.map((d) => ({
          id: d.id,
          title: d.title,
          status: shownDocumentStatus(d),
          error: d.error,
          chunks: d.chunkCount,
          path: d.path,
        })),
      });
      return;
    }
    const rows = status.documents.map((d) => [
      d.id,
      truncateToWidth(d.title, 40),
      shownDocumentStatus(d),
      d.error ?? "",
    ]);
    process.stdout.write(`${formatTable(["id", "title", "status", "error"], rows)}\n\n`);
    const c = status.counts;
    process.stdout.write(
      `${c.documents} documents (${c.failedDocuments} failed), ${c.chunks} chunks (${chunkProblems(c)}), ` +
        `${c.entities} entities, ${c.relationships} relationships, ${c.communities} communities\n` +
        `storage ${status.storage} at ${status.workspace}; extractor ${status.extractor}; ` +
        `embeddings ${status.embedding.model} (${status.embedding.kind}, ${status.embedding.dimension}-d)\n`,
    );
    if (status.vectorIndexes) process.stdout.write(`${vectorsLine(status.vectorIndexes)}\n`);
    const run = describeIndexRun(status.indexRun);
    if (run) process.stdout.write(`${run}\n`);
    if (status.communitiesStale && c.communities > 0) process.stdout.write(`${STALE_COMMUNITIES}\n`);
  } finally {
    await store.close();
  }
}

const STALE_COMMUNITIES =
  "The communities predate the graph's last change (a curation edit, an index run without or " +
  "stopped before its communities): their reports may name what is gone. " +
  "`kgrag communities --rebuild` or the next `kgrag index` brings them up to date.";

const NOTHING_RECORDED = {
  extractor: "none yet",
  embedding: { model: "none yet", dimension: 0, kind: "none yet" },
} as const;

/** What the documents' "pending" / "processing" mean now: a run at work, or one that was stopped. */
export function describeIndexRun(run: IndexRunReport): string | null {
  const n = run.unfinishedDocuments;
  const unfinished = n === 1 ? "1 document is" : `${n} documents are`;
  switch (run.state) {
    case "idle":
      return null;
    case "running": {
      const writer = run.writer
        ? ` (pid ${run.writer.pid} on ${run.writer.host}, since ${run.writer.since})`
        : "";
      return `An index run is in progress${writer}; ${n === 0 ? "no document is" : unfinished} still to finish.`;
    }
    case "interrupted":
      return (
        `The last index run was interrupted: ${unfinished} not fully indexed and no run is active. ` +
        "Run `kgrag index` again to resume; finished work is kept."
      );
    case "unknown":
      return (
        `${unfinished} not fully indexed: an index run is in progress or was interrupted. ` +
        "If none is running, run `kgrag index` again to resume; finished work is kept."
      );
  }
}

/** The "vectors:" line of `kgrag status`, one part per namespace, on either backend. */
export function vectorsLine(indexes: VectorIndexStatus[]): string {
  return `vectors: ${indexes.map(describeIndex).join("; ")}`;
}

/** "chunks 120000 hnsw 190 MB, fresh", "entities 800 exact" or "chunks 9000 neo4j index ...". */
function describeIndex(index: VectorIndexStatus): string {
  const head = `${index.namespace} ${index.vectors} ${index.kind}`;
  if (index.kind === "exact") return head;
  if (index.neo4jIndex) return `${head} index ${describeNeo4jIndex(index.neo4jIndex)}`;
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

/** "kgrag_chunk_embedding 384-d ONLINE" or "... POPULATING 40%". */
function describeNeo4jIndex(index: Neo4jVectorIndexState): string {
  const dimension = index.dimension === null ? "" : ` ${index.dimension}-d`;
  const progress = index.state === "POPULATING" ? ` ${Math.round(index.populationPercent)}%` : "";
  return `${index.name}${dimension} ${index.state}${progress}`;
}

function foldNote(index: VectorIndexStatus): string {
  if (index.folding) return "; folding its segments in the background";
  return index.foldError ? `; the last background fold failed: ${index.foldError}` : "";
}

/** "2 failed", and the chunks cut short when there are any: they fail their documents too. */
function chunkProblems(counts: StatusReport["counts"]): string {
  const partial = counts.partialChunks > 0 ? `, ${counts.partialChunks} cut short` : "";
  return `${counts.failedChunks} failed${partial}`;
}
