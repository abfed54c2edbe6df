import { communityContext } from "../communities/community-context.js";
import { expandSeeds } from "../graph/graph-expansion.js";
import { relationshipSeeds } from "../graph/seeds.js";
import type { QueryMode } from "../options.js";
import { EMPTY_RETRIEVAL, globalKeywords, type Retrieval, type RetrievalInput } from "./retrieval.js";

/**
 * Themes and relations across the corpus: high-level keywords -> relationships whose text matches
 * (vector and BM25, fused) -> their endpoint entities -> graph expansion -> source chunks; plus,
 * once communities exist, the community reports most relevant to the question.
 */
export async function retrieveGlobal(input: RetrievalInput): Promise<Retrieval> {
  const { options } = input;
  const matched = await relationshipSeeds(input, globalKeywords(input.question, input.keywords));
  const [hits, reports] = await Promise.all([
    expandSeeds(input.graph, { entities: new Map(), relationships: matched }, options.graphRanking, options),
    // The full map-reduce over reports is for global questions proper, and only when an answer is wanted.
    communityContext(input, options.mode === "global" && !options.contextOnly),
  ]);
  return {
    ...EMPTY_RETRIEVAL,
    ...hits,
    communities: reports.communities,
    communityAnalysis: reports.analysis,
    ...(reports.noReports ? { warnings: [noReportsWarning(options.mode)] } : {}),
  };
}

/** Global mode without any report answers from passages alone: said, with how to build them. */
export function noReportsWarning(mode: QueryMode): string {
  const missed =
    mode === "global"
      ? "global mode answered from the relationships' passages only"
      : `${mode} mode's context has no reports`;
  // Reports are built at the end of a run: a stopped run leaves none, like --no-communities.
  return (
    `This workspace has no community reports yet (an index run builds them at its end, so a run that ` +
    `was stopped or used --no-communities leaves none), so ${missed}. Finish indexing with \`kgrag index\` ` +
    "(without --no-communities), or build them with `kgrag communities --rebuild`."
  );
}
