import { expandSeeds } from "../graph/graph-expansion.js";
import { entitySeeds } from "../graph/seeds.js";
import { EMPTY_RETRIEVAL, type Retrieval, type RetrievalInput } from "./retrieval.js";

/**
 * Specific entities: low-level keywords -> the entities they name -> graph expansion (their
 * relationships and what those lead to) -> the chunks that mention them.
 */
export async function retrieveLocal(input: RetrievalInput): Promise<Retrieval> {
  const { options } = input;
  const seeds = await entitySeeds(input);
  const hits = await expandSeeds(
    input.graph,
    { entities: seeds, relationships: [] },
    options.graphRanking,
    options,
  );
  return { ...EMPTY_RETRIEVAL, ...hits };
}
