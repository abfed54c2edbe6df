import type { ScoredId } from "../../types.js";
import { interleave } from "../fusion.js";
import type { RetrievalInput } from "./retrieval.js";

/**
 * The graph walks' passages in the question's own order: BM25 of the question over those passages
 * and over the corpus's first `corpusPassages` by the same BM25 (hybrid's
 * query.fusion.hybridCorpusPassages; 0 adds none). A walk ranks a passage by how central its
 * entities are, not by whether it says what was asked; hybrid interleaves this order with the
 * walks' (query.fusion.graphPassageText; off: none).
 */
export async function questionOrderOf(
  input: RetrievalInput,
  passages: ScoredId[],
  corpusPassages = 0,
): Promise<ScoredId[]> {
  if (!input.services.config.query.fusion.graphPassageText || passages.length === 0) return [];
  const { store } = input.services;
  const candidates = new Set(passages.map((c) => c.id));
  if (corpusPassages > 0) {
    const head = await store.searchChunkText(input.question, corpusPassages, input.graph.scope?.chunkIds);
    for (const hit of head) candidates.add(hit.id);
  }
  return store.searchChunkText(input.question, candidates.size, candidates);
}

/**
 * The passage hybrid and mix put first, when two kinds of evidence agree on it (issue 15: their
 * MRR was below naive's where BM25 is the strongest single mode). Local's first passage keeps the
 * lead when the question's BM25 (`byText`) also ranks it in its first `depth`; otherwise BM25's
 * first passage leads when local's or global's walk ranks it in its first `depth`. Without
 * agreement nothing moves. Measured on three development sets (docs/query.md).
 */
export function agreedLead(
  byText: ScoredId[],
  walks: { local: ScoredId[]; global: ScoredId[] },
  depth: number,
): ScoredId | undefined {
  const inTop = (list: ScoredId[], id: string) => list.slice(0, depth).some((c) => c.id === id);
  const localHead = walks.local[0];
  if (depth <= 0 || (localHead && inTop(byText, localHead.id))) return undefined;
  const textHead = byText[0];
  if (!textHead) return undefined;
  return inTop(walks.local, textHead.id) || inTop(walks.global, textHead.id) ? textHead : undefined;
}

/** The list with `lead` moved (or put) first. */
export function withLead(lead: ScoredId | undefined, list: ScoredId[]): ScoredId[] {
  return lead ? [lead, ...list.filter((c) => c.id !== lead.id)] : list;
}

/**
 * The walks' passages and the question's BM25 order (`byText`) interleaved: local's first, then
 * BM25's, then global's; but BM25's first when it does not list local's first passage at all and
 * `textFirstWithoutSupport` is on. A walk's head that shares no word with the question was
 * reached through the graph alone: on songci-zh (classical lines, where the question quotes its
 * poem) it was rarely the answer, while on the English sets local's head nearly always has some
 * word of the question behind it, so their order did not change.
 */
export function passageOrder(
  byText: ScoredId[],
  walks: { local: ScoredId[]; global: ScoredId[] },
  textFirstWithoutSupport: boolean,
): ScoredId[] {
  const head = walks.local[0];
  const unsupported = head !== undefined && !byText.some((c) => c.id === head.id);
  return textFirstWithoutSupport && unsupported
    ? interleave([byText, walks.local, walks.global])
    : interleave([walks.local, byText, walks.global]);
}
