import type { Reranker } from "../rerank/reranker.js";
import type { GraphStore } from "../storage/graph-store.js";
import type { ScoredId } from "../types.js";
import type { QueryMode } from "./mode-names.js";

/** The modes whose context is led by passages; global reads community reports instead. */
export const RERANKED_MODES: ReadonlySet<QueryMode> = new Set(["naive", "local", "mix"]);

export interface RerankOutcome {
  chunks: ScoredId[];
  /** Set when the reranker failed and the retrieval order was kept. */
  warning?: string;
}

/**
 * Candidate passages in the reranker's order, scored by it, cut to `topN` when given. Passages
 * the reranker leaves out follow in their retrieval order. A failing reranker costs the query
 * nothing but the reordering: the retrieval order stays, with a warning.
 */
export async function rerankPassages(
  reranker: Reranker,
  store: GraphStore,
  question: string,
  candidates: ScoredId[],
  topN: number | undefined,
): Promise<RerankOutcome> {
  if (candidates.length === 0) return { chunks: candidates };
  try {
    const texts = new Map((await store.getChunks(candidates.map((c) => c.id))).map((c) => [c.id, c.text]));
    const scores = await reranker.rerank(
      question,
      candidates.map((c) => texts.get(c.id) ?? ""),
    );
    const ranked = [...scores].sort((a, b) => b.score - a.score);
    const chosen = new Set(ranked.map((s) => s.index));
    const reordered = [
      ...ranked.flatMap((s) => {
        const candidate = candidates[s.index];
        return candidate ? [{ id: candidate.id, score: s.score }] : [];
      }),
      ...candidates.filter((_, i) => !chosen.has(i)),
    ];
    return { chunks: topN === undefined ? reordered : reordered.slice(0, topN) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { chunks: candidates, warning: `Reranking failed, passages kept in retrieval order: ${reason}` };
  }
}
