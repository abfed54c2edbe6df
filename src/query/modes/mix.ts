import { retrieveGlobal } from "./global.js";
import { mergeGraphHits } from "./hybrid.js";
import { retrieveLocal } from "./local.js";
import { retrieveNaive } from "./naive.js";
import { agreedLead, passageOrder, withLead } from "./passage-evidence.js";
import type { Retrieval, RetrievalInput } from "./retrieval.js";

/**
 * The graph and the passages together: hybrid's entities, relationships and reports, and the
 * passages of local's walk (from the named entities), of naive (the passages the question itself
 * matches) and of global's walk (from the matched relationships) interleaved in that order.
 * Interleaving keeps each list's head in the first places whichever list is strong on a set, so
 * mix stays at least as good as its best part; naive goes before global, the weakest list on every
 * set, so global's head does not push naive's second and third hits out of the first eight.
 * Reciprocal rank and score fusion let two agreeing lists outvote a third (measured; docs/query.md).
 * The first passage is the one naive and a walk agree on, when they do (agreedLead); naive's
 * order goes first when it does not list local's head at all (passageOrder).
 */
export async function retrieveMix(input: RetrievalInput): Promise<Retrieval> {
  const [local, global, passages] = await Promise.all([
    retrieveLocal(input),
    retrieveGlobal(input),
    retrieveNaive(input),
  ]);
  const graph = mergeGraphHits(local, global);
  const walks = { local: local.chunks, global: global.chunks };
  const { agreedLeadDepth, textFirstWithoutSupport } = input.services.config.query.fusion;
  const lead = agreedLead(passages.chunks, walks, agreedLeadDepth);
  const chunks = withLead(lead, passageOrder(passages.chunks, walks, textFirstWithoutSupport));
  return { ...graph, chunks: chunks.slice(0, input.options.chunkTopK) };
}
