import type { ChatModel } from "../llm/chat-model.js";
import { cleanGeneratedCypher } from "./clean-cypher.js";
import { answerFromRows } from "./cypher-answer.js";
import { usedParameters } from "./cypher-files.js";
import {
  type FailureStage,
  fixPrompt,
  generatePrompt,
  type HistoryTurn,
  type PromptContext,
} from "./cypher-prompts.js";
import { CypherQueryError, ReadOnlyRefusal } from "./run-cypher.js";
import type { GraphSchema } from "./schema.js";
import { TEXT2CYPHER_DEFAULTS } from "./text2cypher-defaults.js";
import { type CypherValidation, type ValidateOptions, validateCypher } from "./validator.js";

export type { HistoryTurn } from "./cypher-prompts.js";
export { TEXT2CYPHER_DEFAULTS };

export interface ExecutionLimits {
  timeoutMs: number;
  maxRows: number;
}

export interface CypherExecution {
  rows: Record<string, unknown>[];
  /** True when the row cap cut the result short. */
  truncated?: boolean;
}

/**
 * Runs an already validated, read-only query: READ routing, the timeout and the row cap are the
 * executor's job (live: src/cypher/live-cypher.ts over run-cypher.ts; tests: recorded rows).
 */
export type CypherExecutor = (
  cypher: string,
  limits: ExecutionLimits,
  params: Record<string, unknown>,
) => Promise<CypherExecution>;

export interface TextToCypherDeps {
  chat: ChatModel;
  schema: GraphSchema;
  execute: CypherExecutor;
}

export interface TextToCypherOptions {
  /**
   * Correction rounds after a query the validator rejected or Neo4j failed at run time (default 1;
   * both kinds share the budget).
   */
  maxCorrections?: number;
  timeoutMs?: number;
  maxRows?: number;
  /** Extra validator settings (allowed procedures, Cypher version). */
  validation?: Omit<ValidateOptions, "parameters">;
  /**
   * Values the queries may use as $parameters (e.g. the workspace of kgrag's own graph); any other
   * $parameter is a validation error, since nothing would supply it.
   */
  parameters?: Record<string, unknown>;
  /**
   * Parameters every query must use, each with the error a query without it gets (the workspace
   * filter of kgrag's own graph: without it a query reads every workspace in the database).
   */
  requiredParameters?: Record<string, string>;
  /** Notes for the model about this database, e.g. a workspace filter every query needs. */
  instructions?: string;
  schemaTokens?: number;
  /** Budget for result rows in the answer prompt. */
  rowTokens?: number;
}

/** A query that did not make it: rejected by the validator, or failed by Neo4j when it ran. */
export interface FailedAttempt {
  cypher: string;
  stage: FailureStage;
  errors: string[];
}

export interface TextToCypherResult {
  question: string;
  /** The last query generated (null when the model said Cypher cannot answer). */
  cypher: string | null;
  valid: boolean;
  errors: string[];
  warnings: string[];
  /** Generations made: 1 plus the correction rounds used. */
  attempts: number;
  /** Every query that failed, in order, each with why: what a correction round was about. */
  failedAttempts: FailedAttempt[];
  rows: Record<string, unknown>[];
  truncated: boolean;
  executed: boolean;
  answer: string;
  /** The model's reason when it said the question is not a graph lookup. */
  noCypherReason?: string;
}

/**
 * The answer as `kgrag ask --json` and the MCP ask tool report it: the last query and its checks,
 * whether it ran, and every failed attempt a correction round was about.
 */
export function textToCypherReport(result: TextToCypherResult) {
  const { question, cypher, valid, errors, executed, attempts, failedAttempts, rows, answer } = result;
  return { question, cypher, valid, errors, executed, attempts, failedAttempts, rows, answer };
}

interface Generation {
  cypher: string | null;
  valid: boolean;
  errors: string[];
  warnings: string[];
  attempts: number;
  failedAttempts: FailedAttempt[];
  noCypherReason?: string;
}

/** Question -> validated read-only Cypher -> rows -> an answer computed only from those rows. */
export async function answerWithCypher(
  question: string,
  deps: TextToCypherDeps,
  options: TextToCypherOptions = {},
  history: HistoryTurn[] = [],
): Promise<TextToCypherResult> {
  const settings = {
    timeoutMs: options.timeoutMs ?? TEXT2CYPHER_DEFAULTS.timeoutMs,
    maxRows: options.maxRows ?? TEXT2CYPHER_DEFAULTS.maxRows,
    rowTokens: options.rowTokens ?? TEXT2CYPHER_DEFAULTS.rowTokens,
  };
  const generator = cypherGenerator(question, deps, options);
  let generation = await generator.generate(generatePrompt(generator.context, history), 1, []);
  const limits = { timeoutMs: settings.timeoutMs, maxRows: settings.maxRows };
  for (;;) {
    const base = { question, ...generation, rows: [], truncated: false, executed: false };
    if (generation.noCypherReason !== undefined) {
      return { ...base, answer: `Cypher cannot answer this question: ${generation.noCypherReason}` };
    }
    if (!generation.valid || generation.cypher === null) {
      const answer = `No answer: the generated Cypher was rejected and not run (${generation.errors.join("; ")})`;
      return { ...base, answer };
    }
    const cypher = generation.cypher;
    try {
      const execution = await deps.execute(cypher, limits, options.parameters ?? {});
      return { ...base, ...(await answerExecution(deps.chat, question, cypher, execution, settings)) };
    } catch (error) {
      const message = `The query failed when it ran: ${(error as Error).message}`;
      const failedAttempts = [
        ...generation.failedAttempts,
        { cypher, stage: "run" as const, errors: [message] },
      ];
      if (!isQueryFault(error) || generation.attempts > generator.maxCorrections) {
        const errors = [...generation.errors, message];
        return { ...base, failedAttempts, errors, answer: `No answer: ${message}` };
      }
      // Neo4j's own message (a / by zero, a type error) is what the model needs to correct it.
      const fix = fixPrompt(generator.context, cypher, [(error as Error).message], "run");
      generation = await generator.generate(fix, generation.attempts + 1, failedAttempts);
    }
  }
}

/**
 * Errors a rewritten query can avoid: Neo4j failed or refused the query itself. A timeout, a lost
 * connection or an auth error would fail the next query too, so they get no correction round.
 */
function isQueryFault(error: unknown): boolean {
  return error instanceof CypherQueryError || error instanceof ReadOnlyRefusal;
}

async function answerExecution(
  chat: ChatModel,
  question: string,
  cypher: string,
  execution: CypherExecution,
  settings: { maxRows: number; rowTokens: number },
): Promise<Pick<TextToCypherResult, "rows" | "truncated" | "executed" | "answer">> {
  const rows = execution.rows.slice(0, settings.maxRows);
  const truncated = Boolean(execution.truncated) || execution.rows.length > settings.maxRows;
  const answer = await answerFromRows(chat, {
    question,
    cypher,
    rows,
    truncated,
    rowTokens: settings.rowTokens,
  });
  return { rows, truncated, executed: true, answer };
}

/**
 * Generate -> clean -> validate, then up to `maxCorrections` rounds that hand the model its
 * errors. Only a query that passed the validator comes back with valid = true.
 */
export async function generateCypher(
  question: string,
  deps: Pick<TextToCypherDeps, "chat" | "schema">,
  options: TextToCypherOptions = {},
  history: HistoryTurn[] = [],
): Promise<Generation> {
  const generator = cypherGenerator(question, deps, options);
  return generator.generate(generatePrompt(generator.context, history), 1, []);
}

interface CypherGenerator {
  context: PromptContext;
  maxCorrections: number;
  /**
   * Generations from `prompt` on, numbered from `attempt`, correcting rejected queries while the
   * correction budget (attempt - 1 rounds used so far) lasts.
   */
  generate(prompt: string, attempt: number, failedAttempts: FailedAttempt[]): Promise<Generation>;
}

function cypherGenerator(
  question: string,
  deps: Pick<TextToCypherDeps, "chat" | "schema">,
  options: TextToCypherOptions,
): CypherGenerator {
  const maxCorrections = options.maxCorrections ?? TEXT2CYPHER_DEFAULTS.maxCorrections;
  const context: PromptContext = {
    schema: deps.schema,
    question,
    instructions: options.instructions ?? "",
    schemaTokens: options.schemaTokens ?? 2500,
  };
  const validate = memoisedValidator(
    deps.schema,
    { ...options.validation, parameters: Object.keys(options.parameters ?? {}) },
    options.requiredParameters ?? {},
  );
  // The LLM cache keeps only replies that pass, so asking again never replays a rejected query.
  const acceptAnswer = (text: string) => {
    const generated = cleanGeneratedCypher(text);
    return generated.kind === "no-cypher" || validate(generated.cypher).valid;
  };
  const generate = async (
    firstPrompt: string,
    firstAttempt: number,
    failedBefore: FailedAttempt[],
  ): Promise<Generation> => {
    let prompt = firstPrompt;
    const failedAttempts = [...failedBefore];
    for (let attempt = firstAttempt; ; attempt++) {
      const messages = [{ role: "user" as const, content: prompt }];
      const reply = await deps.chat.chat({ stage: "text2cypher", temperature: 0, messages, acceptAnswer });
      const generated = cleanGeneratedCypher(reply.text);
      if (generated.kind === "no-cypher") {
        return {
          cypher: null,
          valid: false,
          errors: [],
          warnings: [],
          attempts: attempt,
          failedAttempts,
          noCypherReason: generated.reason,
        };
      }
      const { valid, errors, warnings } = validate(generated.cypher);
      if (!valid) failedAttempts.push({ cypher: generated.cypher, stage: "validation", errors });
      if (valid || attempt > maxCorrections)
        return { cypher: generated.cypher, valid, errors, warnings, attempts: attempt, failedAttempts };
      prompt = fixPrompt(context, generated.cypher, errors);
    }
  };
  return { context, maxCorrections, generate };
}

/** Validation costs ~100 ms (Neo4j's semantic analysis); the cache check and the loop share it. */
function memoisedValidator(
  schema: GraphSchema,
  options: ValidateOptions,
  required: Record<string, string>,
): (cypher: string) => CypherValidation {
  const seen = new Map<string, CypherValidation>();
  return (cypher) => {
    let verdict = seen.get(cypher);
    if (!verdict) {
      verdict = withRequiredParameters(cypher, validateCypher(cypher, schema, options), required);
      seen.set(cypher, verdict);
    }
    return verdict;
  };
}

/** A query that leaves out a required parameter is rejected with that parameter's message. */
function withRequiredParameters(
  cypher: string,
  verdict: CypherValidation,
  required: Record<string, string>,
): CypherValidation {
  const used = new Set(usedParameters(cypher));
  const missing = Object.entries(required)
    .filter(([name]) => !used.has(name))
    .map(([, message]) => message);
  if (missing.length === 0) return verdict;
  return { ...verdict, valid: false, errors: [...verdict.errors, ...missing] };
}
