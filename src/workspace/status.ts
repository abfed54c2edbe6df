import type { KgragConfig } from "../config.js";
import { communitiesAreStale } from "../pipeline/community-freshness.js";
import type { GraphStore, VectorIndexStatus } from "../storage/graph-store.js";
import type { DocumentRecord, GraphCounts } from "../types.js";
import { activeWriter, type LockOwner } from "./lock.js";

export interface StatusReport {
  workspace: string;
  storage: KgragConfig["storage"];
  extractor: string;
  embedding: { model: string; dimension: number; kind: string };
  documents: DocumentRecord[];
  counts: GraphCounts;
  /** How each vector namespace is searched (exact or an HNSW file, its size and freshness). */
  vectorIndexes?: VectorIndexStatus[];
  /** Documents left half-indexed, and whether a run is working on them. */
  indexRun: IndexRunReport;
  /**
   * The graph changed since the communities were built (a curation edit, `index --no-communities`,
   * a run stopped before its communities): their reports may name what is gone until the next
   * `kgrag index` or `kgrag communities --rebuild`.
   */
  communitiesStale: boolean;
}

export interface IndexRunReport {
  /** Documents pending or processing. */
  unfinishedDocuments: number;
  /**
   * "running": a run holds the workspace; "interrupted": none does, yet documents are unfinished
   * (kill -9, crash, power loss: running `kgrag index` again resumes); "idle": nothing to finish;
   * "unknown": unfinished documents, and a store whose writer is not seen from here (Neo4j).
   */
  state: "running" | "interrupted" | "idle" | "unknown";
  /** The process holding the workspace, when it is known. */
  writer?: LockOwner;
}

/** Whether an index run holds the workspace, and what it left unfinished if none does. */
export function indexRunReport(
  storage: KgragConfig["storage"],
  workspace: string,
  documents: DocumentRecord[],
): IndexRunReport {
  const unfinishedDocuments = documents.filter(
    (d) => d.status === "pending" || d.status === "processing",
  ).length;
  // Only the embedded store's writer holds a lock file in the workspace folder.
  const writer = storage === "sqlite" ? activeWriter(workspace) : undefined;
  if (writer === undefined)
    return { unfinishedDocuments, state: unfinishedDocuments > 0 ? "unknown" : "idle" };
  if (writer === null)
    return { unfinishedDocuments, state: unfinishedDocuments > 0 ? "interrupted" : "idle" };
  return { unfinishedDocuments, state: "running", ...(writer === "unnamed" ? {} : { writer }) };
}

/** What the store holds: its documents, the graph totals and the state of its vector indexes. */
export async function storeContents(
  store: GraphStore,
): Promise<Pick<StatusReport, "documents" | "counts" | "vectorIndexes" | "communitiesStale">> {
  return {
    documents: await store.listDocuments(),
    counts: await store.counts(),
    communitiesStale: await communitiesAreStale(store),
    ...(store.vectorIndexStatus ? { vectorIndexes: await store.vectorIndexStatus() } : {}),
  };
}

/**
 * The models that built the workspace, as its first writer recorded them: what `kgrag status`
 * shows without constructing (or even loading) any model. Null before anything was written.
 */
export async function recordedModels(
  store: GraphStore,
): Promise<Pick<StatusReport, "extractor" | "embedding"> | null> {
  const model = await store.getMeta("embedding.model");
  const dimension = await store.getMeta("embedding.dimension");
  if (model === undefined || dimension === undefined) return null;
  return {
    extractor: (await store.getMeta("extractor")) ?? "unknown",
    embedding: {
      model,
      dimension: Number(dimension),
      kind: (await store.getMeta("embedding.kind")) ?? "unknown",
    },
  };
}
