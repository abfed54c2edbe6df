/** The query modes and graph rankings by name, apart from the option schema: the CLI's help lists them. */
export const QUERY_MODES = ["naive", "local", "global", "hybrid", "mix"] as const;
export type QueryMode = (typeof QUERY_MODES)[number];

/**
 * How graph expansion ranks what the seed entities lead to: "ppr" propagates relevance from the
 * seeds through the graph (reaches a second hop the question does not name); "degree" is the
 * LightRAG ranking of the seeds' own relationships by degree and weight, kept to measure against.
 */
export const GRAPH_RANKINGS = ["ppr", "degree"] as const;
export type GraphRanking = (typeof GRAPH_RANKINGS)[number];
