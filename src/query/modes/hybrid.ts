import { interleave } from "../fusion.js";
import { retrieveGlobal } from "./global.js";
import { retrieveLocal } from "./local.js";
import { agreedLead, passageOrder, questionOrderOf, withLead } from "./passage-evidence.js";
import { candidateDepth, type Retrieval, type RetrievalInput } from "./retrieval.js";

/**
 * Local and global together: each list interleaved (local first) and de-duplicated. Passages:
 * local's, then the walks' passages in the question's BM25 order, then global's, interleaved, so
 * the walked passage that says what was asked comes up even when neither walk put it first (on
 * the sets where BM25 beat both walks, hybrid stayed below it); the question's first few BM25
 * passages of the whole corpus join that order (query.fusion.hybridCorpusPassages). Measured against one PageRank
 * walk restarting at both seed sets, and rank or score fusion of the lists (docs/query.md). The
 * first passage is the one BM25 and a walk agree on, when they do (agreedLead); the BM25 order
 * goes first when it does not list local's head at all (passageOrder).
 */
export async function retrieveHybrid(input: RetrievalInput): Promise<Retrieval> {
  // The walks hand over as many candidates as naive reads from its indexes; their heads are unchanged.
  const deeper = { ...input, options: { ...input.options, chunkTopK: candidateDepth(input.options) } };
  const [local, global] = await Promise.all([retrieveLocal(deeper), retrieveGlobal(deeper)]);
  const merged = mergeGraphHits(local, global);
  const { agreedLeadDepth, textFirstWithoutSupport, hybridCorpusPassages } =
    input.services.config.query.fusion;
  const byQuestion = await questionOrderOf(input, merged.chunks, hybridCorpusPassages);
  const walks = { local: local.chunks, global: global.chunks };
  const lead = agreedLead(byQuestion, walks, agreedLeadDepth);
  const chunks = withLead(lead, passageOrder(byQuestion, walks, textFirstWithoutSupport));
  return { ...merged, chunks: chunks.slice(0, input.options.chunkTopK) };
}

/** Local's and global's findings interleaved list by list; the reports come from global. */
export function mergeGraphHits(local: Retrieval, global: Retrieval): Retrieval {
  return {
    entities: interleave([local.entities, global.entities]),
    relationships: interleave([local.relationships, global.relationships]),
    chunks: interleave([local.chunks, global.chunks]),
    communities: global.communities,
    communityAnalysis: global.communityAnalysis,
    ...(global.warnings ? { warnings: global.warnings } : {}),
  };
}
