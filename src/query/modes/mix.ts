import { interleave } from "../fusion.js";
import { retrieveGlobal } from "./global.js";
import { mergeGraphHits } from "./hybrid.js";
import { retrieveLocal } from "./local.js";
import { retrieveNaive } from "./naive.js";
import type { Retrieval, RetrievalInput } from "./retrieval.js";

/**
 * The graph and the passages together: hybrid's entities, relationships and reports, and the
 * passages of both graph walks (local from the named entities, global from the matched
 * relationships) interleaved with the passages the question itself matches (naive), in that
 * order. Interleaving keeps each list's head in the first places whichever list is strong on a
 * set, so mix stays at least as good as its best part; reciprocal rank fusion let two agreeing
 * lexical lists (global's and naive's) outvote local's walk (measured; see docs/query.md).
 */
export async function retrieveMix(input: RetrievalInput): Promise<Retrieval> {
  const [local, global, passages] = await Promise.all([
    retrieveLocal(input),
    retrieveGlobal(input),
    retrieveNaive(input),
  ]);
  const graph = mergeGraphHits(local, global);
  const chunks = interleave([local.chunks, global.chunks, passages.chunks]);
  return { ...graph, chunks: chunks.slice(0, input.options.chunkTopK) };
}
