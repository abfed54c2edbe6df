import { type Command, InvalidArgumentError, Option } from "commander";
import { readBatchFile, runBatch } from "../../query/batch.js";
import {
  GRAPH_RANKINGS,
  type GraphRanking,
  QUERY_MODES,
  type QueryMode,
  type QueryOptionsInput,
} from "../../query/options.js";
import { runQuery } from "../../query/query-engine.js";
import { resultText } from "../../query/result-text.js";
import type { KgragServices } from "../../services.js";
import { UsageError } from "../output.js";

/** Opens a workspace's services for one command and lets go of them afterwards. */
export type OpenServices = (opts: {
  workspace?: string;
}) => Promise<{ services: KgragServices; close(): Promise<void> }>;

interface QueryFlags {
  mode: QueryMode;
  topK?: number;
  chunkTopK?: number;
  contextOnly?: boolean;
  stream?: boolean;
  json?: boolean;
  jsonl?: boolean;
  batch?: string;
  doc?: string[];
  filter?: string[];
  responseType?: string;
  graphRanking: GraphRanking;
  workspace?: string;
}

export function registerQueryCommand(program: Command, open: OpenServices): void {
  program
    .command("query")
    .description("Answer a question from the indexed documents, citing the passages used")
    .argument("[question]", "the question (omit with --batch)")
    .addOption(new Option("-m, --mode <mode>", "retrieval mode").choices(QUERY_MODES).default("mix"))
    .option("--top-k <n>", "entities / relationships retrieved (default 40)", positiveInt)
    .option("--chunk-top-k <n>", "passages kept in the context (default 20)", positiveInt)
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
    .option("--batch <file>", 'questions file, one {"id","question"} JSON object per line')
    .option("--jsonl", "with --batch: one JSON result per line, in input order (the default)")
    .option("-w, --workspace <dir>", "workspace folder (default $KGRAG_WORKSPACE or ./kgrag-data)")
    .action(async (question: string | undefined, flags: QueryFlags) => {
      checkInvocation(question, flags);
      const { services, close } = await open(flags);
      try {
        if (flags.batch) await batchQuery(services, flags.batch, flags);
        else await singleQuery(services, question ?? "", flags);
      } finally {
        await close();
      }
    });
}

async function singleQuery(services: KgragServices, question: string, flags: QueryFlags): Promise<void> {
  const stream =
    !flags.json && !flags.contextOnly && services.chat !== null && (flags.stream || process.stdout.isTTY);
  const options: QueryOptionsInput = {
    ...queryOptions(flags),
    onToken: stream ? (delta) => process.stdout.write(delta) : undefined,
  };
  const result = await runQuery(services, question, options);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  if (stream) process.stdout.write("\n\n");
  process.stdout.write(resultText(result, { answerShown: stream }));
}

async function batchQuery(services: KgragServices, file: string, flags: QueryFlags): Promise<void> {
  const questions = await readBatchFile(file);
  let failed = 0;
  await runBatch(services, questions, queryOptions(flags), (outcome) => {
    if ("error" in outcome) failed += 1;
    process.stdout.write(`${JSON.stringify(outcome)}\n`);
  });
  if (failed > 0) {
    process.stderr.write(
      `kgrag: ${failed} of ${questions.length} question(s) failed; see their "error" lines\n`,
    );
    process.exitCode = 1;
  }
}

function queryOptions(flags: QueryFlags): QueryOptionsInput {
  return {
    mode: flags.mode,
    topK: flags.topK,
    chunkTopK: flags.chunkTopK,
    contextOnly: flags.contextOnly ?? false,
    responseType: flags.responseType,
    docIds: flags.doc,
    metadata: flags.filter ? parseFilters(flags.filter) : undefined,
    graphRanking: flags.graphRanking,
  };
}

function checkInvocation(question: string | undefined, flags: QueryFlags): void {
  if (flags.batch && question) {
    throw new UsageError("Give either a question or --batch FILE, not both.");
  }
  if (!flags.batch && !question?.trim()) {
    throw new UsageError('Give a question, e.g. kgrag query "Who founded X?", or --batch FILE.');
  }
  if (flags.batch && flags.json) {
    throw new UsageError("--batch prints one JSON result per line (--jsonl); --json is for one question.");
  }
}

export function parseFilters(pairs: string[]): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new UsageError(`--filter expects key=value, got "${pair}"`);
    metadata[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return metadata;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError(`expected a whole number of at least 1, got "${value}"`);
  return n;
}
