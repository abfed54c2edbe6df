import { type Command, Option } from "commander";
import { DEFAULT_KS } from "../../query/eval/cut-offs.js";
import { GRAPH_RANKINGS, type GraphRanking, QUERY_MODES } from "../../query/mode-names.js";
import type { KgragServices } from "../../services.js";

export interface EvalFlags {
  questions: string;
  corpus?: string;
  modes?: string[];
  k: string;
  json?: boolean;
  graphRanking: GraphRanking;
  workspace?: string;
}

/** The workspace eval needs: services to query, and a way to index the corpus (kgrag.index). */
export type OpenEvalWorkspace = (opts: {
  workspace?: string;
  create?: boolean;
}) => Promise<{ services: KgragServices; close(): Promise<void>; index(paths: string[]): Promise<unknown> }>;

export function registerEvalCommand(program: Command, open: OpenEvalWorkspace): void {
  program
    .command("eval")
    .description(
      "Score retrieval against gold passages and answers against gold answers (answer contains; EM and F1 with an LLM), per query mode",
    )
    .requiredOption("--questions <file>", 'questions JSONL: {"id","question","gold_titles":[...],"answer"?}')
    .option(
      "--corpus <file>",
      'corpus JSONL: {"id","title","text"}; indexed first if needed (default: score the workspace as indexed)',
    )
    .option("--modes <mode...>", `modes to score (default all: ${QUERY_MODES.join(" ")})`)
    .option("--k <list>", "cut-offs K, comma-separated", DEFAULT_KS.join(","))
    .option("--json", "print the report as JSON")
    .addOption(
      new Option("--graph-ranking <ranking>", "graph expansion: personalised PageRank or degree/weight")
        .choices(GRAPH_RANKINGS)
        .default("ppr"),
    )
    .option("-w, --workspace <dir>", "workspace folder (default $KGRAG_WORKSPACE or ./kgrag-data)")
    .action(async (flags: EvalFlags) => (await import("../actions/eval.js")).evalAction(open, flags));
}
