import { renderPrompt } from "../llm/prompts.js";
import { truncateToTokens } from "../util/tokens.js";
import type { GraphSchema } from "./schema.js";
import { renderSchema } from "./schema-render.js";

/** One earlier exchange, as follow-up questions need it. */
export interface HistoryTurn {
  question: string;
  cypher: string | null;
  rows: Record<string, unknown>[];
  answer: string;
}

export interface PromptContext {
  schema: GraphSchema;
  question: string;
  /** Notes about the database for the model (e.g. a workspace filter); empty for none. */
  instructions: string;
  schemaTokens: number;
}

export function generatePrompt(context: PromptContext, history: HistoryTurn[]): string {
  return renderPrompt("text2cypher", {
    schema: renderSchema(context.schema, questionWithHistory(context.question, history), {
      maxTokens: context.schemaTokens,
    }),
    instructions: context.instructions || "none",
    history: renderHistory(history),
    question: context.question,
  });
}

/** Where a query failed: the validator rejected it, or Neo4j failed it while running it. */
export type FailureStage = "validation" | "run";

const FAILURE_WORDING: Record<
  FailureStage,
  { failure: string; query_heading: string; errors_heading: string }
> = {
  validation: {
    failure: "was rejected before it ran",
    query_heading: "Rejected query:",
    errors_heading: "Why it was rejected:",
  },
  run: {
    failure: "passed the checks but failed when Neo4j ran it",
    query_heading: "Failed query:",
    errors_heading: "Neo4j's error:",
  },
};

export function fixPrompt(
  context: PromptContext,
  cypher: string,
  errors: string[],
  stage: FailureStage = "validation",
): string {
  return renderPrompt("text2cypher-fix", {
    schema: renderSchema(context.schema, context.question, { maxTokens: context.schemaTokens }),
    instructions: context.instructions || "none",
    question: context.question,
    ...FAILURE_WORDING[stage],
    cypher,
    errors: errors.map((error) => `- ${error}`).join("\n"),
  });
}

/** A follow-up ("and who directed it?") needs the schema parts of the turns it refers to. */
function questionWithHistory(question: string, history: HistoryTurn[]): string {
  return [...history.map((turn) => turn.question), question].join("\n");
}

/** Earlier turns, newest last: question, the Cypher that ran, and a few result rows. */
export function renderHistory(history: HistoryTurn[]): string {
  if (history.length === 0) return "none";
  return history
    .map((turn, i) => {
      const lines = [`Turn ${i + 1} question: ${turn.question}`];
      if (turn.cypher) lines.push(`Cypher:\n${turn.cypher}`);
      if (turn.rows.length) {
        const shown = turn.rows.slice(0, 5).map(rowJson).join("\n");
        lines.push(`First rows (${turn.rows.length} in all):\n${truncateToTokens(shown, 300)}`);
      }
      lines.push(`Answer: ${truncateToTokens(turn.answer, 150)}`);
      return lines.join("\n");
    })
    .join("\n\n");
}

/** JSON that survives driver integers turned into bigint. */
export function rowJson(row: Record<string, unknown>): string {
  return JSON.stringify(row, (_key, value: unknown) =>
    typeof value === "bigint" ? (Number.isSafeInteger(Number(value)) ? Number(value) : String(value)) : value,
  );
}
