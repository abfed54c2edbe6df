import type { ChatModel } from "../llm/chat-model.js";
import { renderPrompt } from "../llm/prompts.js";
import { countTokens } from "../util/tokens.js";
import { rowJson } from "./cypher-prompts.js";

/** Said when a query returns nothing: plainly, and without asking a model that might invent data. */
export const NO_DATA_ANSWER =
  "No matching data: the query ran and returned no rows, so the graph holds nothing that answers this question.";

export interface RowsAnswerInput {
  question: string;
  cypher: string;
  rows: Record<string, unknown>[];
  /** The row cap cut the result short. */
  truncated: boolean;
  /** Budget for the rows in the prompt. */
  rowTokens: number;
}

/** The answer (stage "answer") computed only from the rows the query returned. */
export async function answerFromRows(chat: ChatModel, input: RowsAnswerInput): Promise<string> {
  if (input.rows.length === 0) return NO_DATA_ANSWER;
  const { text, shown } = rowsWithinBudget(input.rows, input.rowTokens);
  const response = await chat.chat({
    stage: "answer",
    temperature: 0,
    messages: [
      {
        role: "user",
        content: renderPrompt("cypher-answer", {
          question: input.question,
          cypher: input.cypher,
          rows: text,
          row_note: rowNote(input.rows.length, shown, input.truncated),
        }),
      },
    ],
  });
  return response.text.trim();
}

function rowsWithinBudget(rows: Record<string, unknown>[], budget: number): { text: string; shown: number } {
  const lines: string[] = [];
  let used = 0;
  for (const row of rows) {
    const line = rowJson(row);
    const cost = countTokens(line) + 1;
    // Always show at least one row, even a long one.
    if (lines.length > 0 && used + cost > budget) break;
    lines.push(line);
    used += cost;
  }
  return { text: lines.join("\n"), shown: lines.length };
}

function rowNote(total: number, shown: number, truncated: boolean): string {
  const count = truncated ? `the first ${total} rows; the row cap cut off the rest` : `${total} rows in all`;
  return shown < total ? `${count}; only the first ${shown} fit here` : count;
}
