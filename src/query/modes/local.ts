import { questionType } from "../answer/question-type.js";
import { expandSeeds } from "../graph/graph-expansion.js";
import { hubSeeds } from "../graph/hub-seeds.js";
import { entitySeeds } from "../graph/seeds.js";
import { EMPTY_RETRIEVAL, type Retrieval, type RetrievalInput } from "./retrieval.js";

/**
 * Specific entities: low-level keywords -> the entities they name -> graph expansion (their
 * relationships and what those lead to) -> the chunks that mention them.
 */
export async function retrieveLocal(input: RetrievalInput): Promise<Retrieval> {
  const { options } = input;
  const linked = await entitySeeds(input);
  // A whole-corpus question links no entity: it starts from the corpus's hubs instead of nothing.
  const seeds =
    linked.size === 0 && questionType(input.question).theme ? await hubSeeds(input.graph) : linked;
  const hits = await expandSeeds(
    input.graph,
    { entities: seeds, relationships: [] },
    options.graphRanking,
    options,
  );
  return { ...EMPTY_RETRIEVAL, ...hits };
}
