import { configFromEnv } from "../../config.js";
import {
  liveCypherOf,
  liveExecutor,
  readOnlyProceduresOf,
  resolveSchema,
  text2CypherSetup,
} from "../../cypher/live-cypher.js";
import { CLI_RAISE_TIMEOUT } from "../../cypher/run-cypher.js";
import {
  answerWithCypher,
  type TextToCypherDeps,
  type TextToCypherOptions,
  type TextToCypherResult,
  textToCypherReport,
} from "../../cypher/text2cypher.js";
import type { OpenForCypher, TextToCypherCliOptions } from "../commands/ask.js";
import { needsNeo4jMessage } from "../needs-neo4j.js";
import { formatTable } from "../output.js";
import { printJson } from "../print-json.js";
import { UsageError } from "../usage-error.js";

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
    const live = liveCypherOf(opened.services.store, readOnlyProceduresOf(opened.services.config));
    if (!live) throw new UsageError(needsNeo4j(command));
    if (!opened.services.chat) throw new UsageError(needsLlm(command));
    const { schema, options } = text2CypherSetup(
      await resolveSchema(live, opts.schema),
      live,
      opts.external ? "external" : "workspace",
    );
    const deps: TextToCypherDeps = {
      chat: opened.services.chat,
      schema,
      execute: liveExecutor(live, CLI_RAISE_TIMEOUT),
    };
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

/** `kgrag ask`: one question answered by one validated, read-only Cypher query. */
export async function askAction(
  open: OpenForCypher,
  question: string,
  opts: TextToCypherCliOptions & { json?: boolean },
): Promise<void> {
  const { deps, settings, opened } = await openTextToCypher(open, opts, "ask");
  try {
    const result = await answerWithCypher(question, deps, settings);
    if (opts.json) printJson(textToCypherReport(result));
    else process.stdout.write(`${formatTextToCypher(result, opts.maxRows)}\n`);
    if (result.errors.length > 0) process.exitCode = 1;
  } finally {
    await opened.close();
  }
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
