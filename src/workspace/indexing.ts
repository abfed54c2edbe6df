import { statSync } from "node:fs";
import { resolve, sep } from "node:path";
import { loadSources } from "../ingest/loaders.js";
import type { StageUsage } from "../llm/usage.js";
import { removeDocuments } from "../pipeline/delete-documents.js";
import { type IndexComponents, runIndexWorkflow } from "../pipeline/index-workflow.js";
import type { KgragServices } from "../services.js";
import type { SourceDocument } from "../types.js";

export interface IndexOptions {
  /** Build communities and reports when the graph changed (default: config, true). */
  communities?: boolean;
  /** Remove documents whose files disappeared from the indexed folders. */
  prune?: boolean;
}

export interface IndexSummary {
  /** Workspace totals after the run. */
  documents: number;
  chunks: number;
  entities: number;
  relationships: number;
  /** Documents in the workspace whose indexing failed. */
  failed: number;
  /** Model calls made by this run (cache hits excluded) and their tokens. */
  llmCalls: number;
  tokens: number;
  durationMs: number;
  added: string[];
  updated: string[];
  /** Seen before with the same content but unfinished or failed: picked up again. */
  resumed: string[];
  unchanged: string[];
  removed: string[];
  /** Documents whose files are gone from an indexed folder; removed only with `prune`. */
  missing: { docId: string; path: string }[];
  skipped: { path: string; reason: string }[];
  failures: { docId: string; error: string }[];
  usage: Partial<Record<string, StageUsage>>;
}

export async function indexPaths(
  services: KgragServices,
  components: IndexComponents,
  paths: string[],
  options: IndexOptions = {},
): Promise<IndexSummary> {
  const { documents, skipped } = await loadSources(paths);
  // The workspace may sit inside an indexed folder (./kgrag-data under .): its files are not input.
  const workspace = resolve(services.config.workspace) + sep;
  const input = skipped.filter((s) => !resolve(s.path).startsWith(workspace));
  return indexSources(services, components, documents, input, options, folderRoots(paths));
}

export async function indexSources(
  services: KgragServices,
  components: IndexComponents,
  sources: SourceDocument[],
  skipped: { path: string; reason: string }[],
  options: IndexOptions = {},
  roots: string[] = [],
): Promise<IndexSummary> {
  const started = Date.now();
  const before = services.usage.totals();
  const missing = await findMissingFiles(services, sources, roots);
  const removed = options.prune ? missing.map((m) => m.docId) : [];
  if (removed.length) await removeDocuments(services, removed, "prune: file removed");

  const run = await runIndexWorkflow(services, components, sources, {
    communities: options.communities,
  });
  const after = services.usage.totals();
  return {
    documents: run.counts.documents,
    chunks: run.counts.chunks,
    entities: run.counts.entities,
    relationships: run.counts.relationships,
    failed: run.counts.failedDocuments,
    llmCalls: after.calls - before.calls,
    tokens: after.promptTokens + after.completionTokens - (before.promptTokens + before.completionTokens),
    durationMs: Date.now() - started,
    added: run.added,
    updated: run.updated,
    resumed: run.resumed,
    unchanged: run.unchanged,
    removed,
    missing: options.prune ? [] : missing,
    skipped,
    failures: run.failures,
    usage: services.usage.stages(),
  };
}

function folderRoots(paths: string[]): string[] {
  return paths
    .map((p) => resolve(p))
    .filter((p) => {
      try {
        return statSync(p).isDirectory();
      } catch {
        return false;
      }
    });
}

/** Documents that came from a file under one of the indexed folders and were not found this time. */
async function findMissingFiles(
  services: KgragServices,
  sources: SourceDocument[],
  roots: string[],
): Promise<{ docId: string; path: string }[]> {
  if (roots.length === 0) return [];
  const seen = new Set(sources.map((s) => s.id));
  const docs = await services.store.listDocuments();
  return docs
    .filter((d) => d.path !== null && !seen.has(d.id))
    .filter((d) => roots.some((root) => d.path?.startsWith(root + sep)))
    .map((d) => ({ docId: d.id, path: d.path ?? "" }));
}
