import { InvalidArgumentError } from "commander";
import { MAX_TOP_K } from "../query/option-limits.js";
import type { GraphRanking, QueryMode, QueryOptionsInput } from "../query/options.js";
import { UsageError } from "./usage-error.js";

/** The flags of `kgrag query`, as commander parses them. */
export interface QueryFlags {
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
  /** Exact vector search instead of the HNSW files. */
  exact?: boolean;
  workspace?: string;
}

/** The query options the flags ask for. */
export function queryOptions(flags: QueryFlags): QueryOptionsInput {
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

/** Refuses flag combinations that cannot mean anything, before any work is done. */
export function checkInvocation(question: string | undefined, flags: QueryFlags): void {
  if (flags.batch && question) {
    throw new UsageError("Give either a question or --batch FILE, not both.");
  }
  if (!flags.batch && !question?.trim()) {
    throw new UsageError('Give a question, e.g. kgrag query "Who founded X?", or --batch FILE.');
  }
  if (flags.batch && flags.json) {
    throw new UsageError("--batch prints one JSON result per line (--jsonl); --json is for one question.");
  }
  if (flags.jsonl && !flags.batch) {
    throw new UsageError("--jsonl is for --batch FILE; use --json to print one question's result as JSON.");
  }
  // --stream prints the answer's words as they come; these print something else, whole, at the end.
  const streamless = flags.json
    ? "--json"
    : flags.jsonl
      ? "--jsonl"
      : flags.contextOnly
        ? "--context-only"
        : undefined;
  if (flags.stream && streamless) {
    throw new UsageError(
      `--stream prints the answer as the model writes it; ${streamless} prints ${streamless === "--context-only" ? "no answer" : "whole results at the end"}: give one of them.`,
    );
  }
}

export function parseFilters(pairs: string[]): Record<string, string> {
  // Metadata filters are ANDed, one value per key: a second value would silently replace the first.
  return parseKeyValues(pairs, "--filter", "a document matches one value per key");
}

/** `key=value` flags (--filter, --meta) as an object; a key given twice is refused, saying `why`. */
export function parseKeyValues(pairs: string[], flag: string, why: string): Record<string, string> {
  const values = new Map<string, string>();
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new UsageError(`${flag} expects key=value, got "${pair}"`);
    const key = pair.slice(0, at).trim();
    if (values.has(key)) throw new UsageError(`${flag} ${key} given twice; ${why}.`);
    values.set(key, pair.slice(at + 1).trim());
  }
  return Object.fromEntries(values);
}

/** --top-k and --chunk-top-k: a whole number from 1 to MAX_TOP_K, the bound the query options keep. */
export function rankDepthFlag(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_TOP_K)
    throw new InvalidArgumentError(`Expected a whole number from 1 to ${MAX_TOP_K.toLocaleString("en-US")}.`);
  return n;
}
