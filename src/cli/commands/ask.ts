import type { Command } from "commander";
import type { KgragConfig } from "../../config.js";
import { TEXT2CYPHER_DEFAULTS } from "../../cypher/text2cypher-defaults.js";
import type { ChatModel } from "../../llm/chat-model.js";
import type { GraphStore } from "../../storage/graph-store.js";
import { UsageError } from "../usage-error.js";

/** What ask and chat open: the workspace's store and model, and (for chat) kgrag's GraphRAG query. */
export type OpenForCypher = (opts: { workspace?: string }) => Promise<{
  services: { store: Pick<GraphStore, "kind">; chat: ChatModel | null; config?: Pick<KgragConfig, "neo4j"> };
  close(): Promise<void>;
  query?: (question: string, options: { mode: "global" }) => Promise<{ answer: string | null }>;
}>;

export interface TextToCypherCliOptions {
  workspace?: string;
  /** Ask the database's own graph (one kgrag did not build) instead of the workspace's. */
  external?: boolean;
  schema?: string;
  timeout: number;
  maxRows: number;
  corrections: number;
}

/** Options shared by ask and chat. */
export function withTextToCypherOptions(command: Command): Command {
  return command
    .option("--schema <file>", "schema.json to work from instead of introspecting the database")
    .option("-w, --workspace <dir>", "workspace folder")
    .option("--external", "ask the database's own graph (one kgrag did not build): no workspace filter")
    .option("--timeout <ms>", "query timeout in milliseconds", wholeNumber, TEXT2CYPHER_DEFAULTS.timeoutMs)
    .option("--max-rows <n>", "row cap", wholeNumber, TEXT2CYPHER_DEFAULTS.maxRows)
    .option("--corrections <n>", "correction rounds after a rejected query", wholeNumber, 1);
}

export function registerAskCommand(program: Command, open: OpenForCypher): void {
  withTextToCypherOptions(
    program
      .command("ask")
      .description("Answer a question with one validated, read-only Cypher query on the Neo4j backend")
      .argument("<question>", "the question, in any language")
      .option(
        "--json",
        'print {"question","cypher","valid","errors","executed","attempts","failedAttempts","rows","answer"}',
      ),
  ).action(async (question: string, opts: TextToCypherCliOptions & { json?: boolean }) =>
    (await import("../actions/ask.js")).askAction(open, question, opts),
  );
}

export function wholeNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new UsageError(`Expected a whole number, got ${value}`);
  return parsed;
}
