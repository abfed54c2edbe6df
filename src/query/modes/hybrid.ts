import { interleave } from "../fusion.js";
import { retrieveGlobal } from "./global.js";
import { retrieveLocal } from "./local.js";
import type { Retrieval, RetrievalInput } from "./retrieval.js";

/**
 * Local and global together: each list interleaved (local first) and de-duplicated. Measured
 * against two alternatives (docs/query.md): one PageRank walk restarting at both seed sets, and
 * reciprocal rank fusion of the two chunk lists; neither beat interleaving.
 */
export async function retrieveHybrid(input: RetrievalInput): Promise<Retrieval> {
  const [local, global] = await Promise.all([retrieveLocal(input), retrieveGlobal(input)]);
  const merged = mergeGraphHits(local, global);
  return { ...merged, chunks: merged.chunks.slice(0, input.options.chunkTopK) };
}

/** Local's and global's findings interleaved list by list; the reports come from global. */
export function mergeGraphHits(local: Retrieval, global: Retrieval): Retrieval {
  return {
    entities: interleave([local.entities, global.entities]),
    relationships: interleave([local.relationships, global.relationships]),
    chunks: interleave([local.chunks, global.chunks]),
    communities: global.communities,
    communityAnalysis: global.communityAnalysis,
  };
}
