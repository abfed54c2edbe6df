import { type Command, Option } from "commander";
import { GRAPH_RANKINGS, QUERY_MODES } from "../../query/mode-names.js";
import type { KgragServices } from "../../services.js";
import { type QueryFlags, rankDepthFlag } from "../query-flags.js";

/** Opens a workspace's services for one command and lets go of them afterwards. */
export type OpenServices = (opts: {
  workspace?: string;
  exact?: boolean;
}) => Promise<{ services: KgragServices; close(): Promise<void> }>;

export function registerQueryCommand(program: Command, open: OpenServices): void {
  program
    .command("query")
    .description("Answer a question from the indexed documents, citing the passages used")
    .argument("[question]", "the question (omit with --batch)")
    .addOption(new Option("-m, --mode <mode>", "retrieval mode").choices(QUERY_MODES).default("mix"))
    .option("--top-k <n>", "entities / relationships retrieved (default 40)", rankDepthFlag)
    .option("--chunk-top-k <n>", "passages kept in the context (default 20)", rankDepthFlag)
    .option("--context-only", "return the retrieved context; no LLM call for an answer")
    .option("--stream", "print the answer as the model writes it (default on a terminal)")
    .option("--json", "print the result as one JSON object")
    .option("--doc <id...>", "only search these documents")
    .option("--filter <key=value...>", "only search documents whose metadata has key=value")
    .option("--response-type <type>", 'answer form, e.g. "a paragraph" or "bullet points"')
    .addOption(
      new Option("--graph-ranking <ranking>", "graph expansion: personalised PageRank or degree/weight")
        .choices(GRAPH_RANKINGS)
        .default("ppr"),
    )
    .option("--exact", "exact vector search instead of the approximate (HNSW) index")
    .option(
      "--batch <file>",
      'questions file, one {"id","question"} JSON object per line, with any query options ("mode", "topK", ...) that win over the flags ("-" for stdin)',
    )
    .option("--jsonl", "with --batch: one JSON result per line, in input order (the default)")
    .option("-w, --workspace <dir>", "workspace folder (default $KGRAG_WORKSPACE or ./kgrag-data)")
    .action(async (question: string | undefined, flags: QueryFlags) =>
      (await import("../actions/query.js")).queryAction(open, question, flags),
    );
}
