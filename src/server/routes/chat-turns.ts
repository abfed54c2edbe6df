import type { HistoryMessage } from "../../query/options.js";
import { QUERY_MODES, type QueryMode } from "../../query/options.js";
import { badRequest } from "../errors.js";

/** A chat message as the Ollama and OpenAI routes read it: its role, and its text ("" for none). */
export interface ChatTurn {
  role: string;
  content: string;
}

/** The message to answer, and the conversation before it. */
export interface AskedTurns {
  message: string;
  history: HistoryMessage[];
}

/**
 * `/local what...` picks the mode; without a prefix the question goes to mix. A `/word` that names
 * no mode is `unknownPrefix` (a path such as `/etc/hosts ...` is no prefix: the word ends at a space).
 */
export function modeAndQuestion(text: string): { mode: QueryMode; question: string; unknownPrefix?: string } {
  const match = /^\s*\/(\w+)(?:\s+([\s\S]*))?$/.exec(text);
  const named = match?.[1]?.toLowerCase();
  if (match && named && (QUERY_MODES as readonly string[]).includes(named))
    return { mode: named as QueryMode, question: (match[2] ?? "").trim() };
  if (match?.[1]) return { mode: "mix", question: text.trim(), unknownPrefix: `/${match[1]}` };
  return { mode: "mix", question: text.trim() };
}

/**
 * What a chat asks, the same for /api/chat and /v1/chat/completions: the last user message is the
 * message to answer; the user and assistant turns with text before it are its history, a user
 * turn without its /mode prefix (the question it asked). System and developer prompts, tool
 * results and tool calls are not kgrag's: it answers from its graph with its own prompt.
 */
export function askedTurns(turns: readonly ChatTurn[]): AskedTurns {
  const lastUser = turns.map((turn) => turn.role).lastIndexOf("user");
  if (lastUser < 0) throw badRequest("messages hold no user message to answer");
  const history = turns
    .slice(0, lastUser)
    .filter((turn) => (turn.role === "user" || turn.role === "assistant") && turn.content.trim() !== "")
    .map((turn): HistoryMessage => historyTurn(turn.role === "user" ? "user" : "assistant", turn.content))
    .filter((turn) => turn.content !== "");
  return { message: turns[lastUser]?.content ?? "", history };
}

function historyTurn(role: HistoryMessage["role"], content: string): HistoryMessage {
  if (role === "assistant") return { role, content };
  const { question, unknownPrefix } = modeAndQuestion(content);
  return { role, content: unknownPrefix ? content.trim() : question };
}
