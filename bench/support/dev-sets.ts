import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { documentTitles } from "../../src/query/context/references.js";
import type { KgragServices } from "../../src/services.js";

/** The depths at which all-gold is reported. */
export const KS = [5, 8, 10];

const CACHE = join(import.meta.dirname, "../datasets/.cache");
/** shared/ sits beside the repository; a git worktree sits one folder deeper. */
const SHARED = [
  join(import.meta.dirname, "../../../shared"),
  join(import.meta.dirname, "../../../../shared"),
].find((dir) => existsSync(dir));

/** The development sets by name: the shared HotpotQA set and the two built by bench/datasets/. */
export const DEV_SETS: Record<string, string> = {
  "hotpotqa-100": join(SHARED ?? "../shared", "datasets/hotpotqa-100"),
  "wiki-vital-en": join(CACHE, "wiki-vital-en"),
  "songci-zh": join(CACHE, "songci-zh"),
};

/**
 * The workspace a bench indexes a set into: under KGRAG_BENCH_WORKSPACES when set (so parallel
 * sessions keep their own copies), else the temp folder. Reused by later runs of every bench.
 */
export function setWorkspace(set: string): string {
  return join(process.env.KGRAG_BENCH_WORKSPACES ?? tmpdir(), `kgrag-bench-set-${set}`);
}

/**
 * The store's full-text index alone (plain BM25, passage level): the titles of the documents of
 * its first 40 passages, in rank order, as the datasets' BM25 reference is measured.
 */
export async function bm25Titles(services: KgragServices, question: string): Promise<string[]> {
  const ranked = await services.store.searchChunkText(question, 40);
  const chunks = await services.store.getChunks(ranked.map((r) => r.id));
  const docOf = new Map(chunks.map((c) => [c.id, c.docId]));
  const docIds = ranked.map((r) => docOf.get(r.id) ?? "");
  const titles = await documentTitles(services.store, docIds);
  return [...new Set(docIds.map((id) => titles.get(id) ?? id))];
}
