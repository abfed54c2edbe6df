import type { Command } from "commander";
import { configFromEnv } from "../../config.js";
import { liveCypherOf, liveExecutor, resolveSchema, text2CypherSetup } from "../../cypher/live-cypher.js";
import {
  answerWithCypher,
  TEXT2CYPHER_DEFAULTS,
  type TextToCypherDeps,
  type TextToCypherOptions,
  type TextToCypherResult,
} from "../../cypher/text2cypher.js";
import type { ChatModel } from "../../llm/chat-model.js";
import type { GraphStore } from "../../storage/graph-store.js";
import { needsNeo4jMessage } from "../needs-neo4j.js";
import { formatTable, printJson, UsageError } from "../output.js";

/** What ask and chat open: the workspace's store and model, and (for chat) kgrag's GraphRAG query. */
export type OpenForCypher = (opts: { workspace?: string }) => Promise<{
  services: { store: Pick<GraphStore, "kind">; chat: ChatModel | null };
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

const needsNeo4j = (command: string) =>
  needsNeo4jMessage(
    command,
    "answers with Cypher run on the graph database",
    "Without a database, `kgrag cypher validate --schema schema.json` checks queries and `kgrag query` " +
      "answers from the embedded store.",
  );

const needsLlm = (command: string) =>
  `\`kgrag ${command}\` needs an LLM to write Cypher: set KGRAG_LLM_MODEL (and KGRAG_LLM_API_KEY, ` +
  "KGRAG_LLM_BASE_URL for a local server).";

/** Opens the workspace and everything Text2Cypher needs, or fails with exit code 2 and what to do. */
export async function openTextToCypher(open: OpenForCypher, opts: TextToCypherCliOptions, command: string) {
  if (storageFromEnv() === "sqlite") throw new UsageError(needsNeo4j(command));
  const opened = await open(opts);
  try {
    const live = liveCypherOf(opened.services.store);
    if (!live) throw new UsageError(needsNeo4j(command));
    if (!opened.services.chat) throw new UsageError(needsLlm(command));
    const { schema, options } = text2CypherSetup(
      await resolveSchema(live, opts.schema),
      live.workspace,
      opts.external ? "external" : "workspace",
    );
    const deps: TextToCypherDeps = { chat: opened.services.chat, schema, execute: liveExecutor(live) };
    const settings: TextToCypherOptions = {
      ...options,
      timeoutMs: opts.timeout,
      maxRows: opts.maxRows,
      maxCorrections: opts.corrections,
    };
    return { deps, settings, opened };
  } catch (error) {
    await opened.close();
    throw error;
  }
}

export function storageFromEnv(): string | undefined {
  try {
    return configFromEnv().storage;
  } catch {
    return undefined; // open() reports an invalid configuration with its own message
  }
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
      .option("--json", 'print {"question","cypher","valid","errors","attempts","rows","answer"}'),
  ).action(async (question: string, opts: TextToCypherCliOptions & { json?: boolean }) => {
    const { deps, settings, opened } = await openTextToCypher(open, opts, "ask");
    try {
      const result = await answerWithCypher(question, deps, settings);
      if (opts.json) printJson(askJson(result));
      else process.stdout.write(`${formatTextToCypher(result, opts.maxRows)}\n`);
      if (result.errors.length > 0) process.exitCode = 1;
    } finally {
      await opened.close();
    }
  });
}

export function askJson(result: TextToCypherResult) {
  const { question, cypher, valid, errors, attempts, rows, answer } = result;
  return { question, cypher, valid, errors, attempts, rows, answer };
}

/** The Cypher (always shown), the rows as a table, then the answer. */
export function formatTextToCypher(result: TextToCypherResult, maxRows: number): string {
  const parts: string[] = [];
  if (result.cypher) {
    const attempts =
      result.attempts > 1
        ? ` (after ${result.attempts - 1} correction${result.attempts > 2 ? "s" : ""})`
        : "";
    parts.push(`Cypher${attempts}:\n${result.cypher}`);
  }
  if (!result.valid && result.errors.length)
    parts.push(`Rejected:\n${result.errors.map((e) => `  - ${e}`).join("\n")}`);
  if (result.executed) parts.push(rowsTable(result.rows, result.truncated, maxRows));
  parts.push(`Answer: ${result.answer}`);
  return parts.join("\n\n");
}

export function rowsTable(rows: Record<string, unknown>[], truncated: boolean, maxRows: number): string {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cells = rows.map((row) => columns.map((column) => cellText(row[column])));
  const table = columns.length ? formatTable(columns, cells) : "(no rows)";
  const count = `${rows.length} row${rows.length === 1 ? "" : "s"}${truncated ? `; stopped at the row cap ${maxRows}` : ""}`;
  return `${table}\n${count}`;
}

function cellText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const text = (typeof value === "string" ? value : JSON.stringify(value)).replace(/\s+/g, " ");
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

export function wholeNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new UsageError(`Expected a whole number, got ${value}`);
  return parsed;
}
