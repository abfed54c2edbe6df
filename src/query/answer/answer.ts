import type { ChatMessage } from "../../llm/chat-model.js";
import { renderPrompt } from "../../llm/prompts.js";
import type { KgragServices } from "../../services.js";
import { countTokens } from "../../util/tokens.js";
import type { BuiltContext } from "../context/build-context.js";
import type { HistoryMessage } from "../options.js";
import { extractiveAnswer } from "./extractive-answer.js";
import { formatHistory } from "./history.js";

export interface AnswerOptions {
  responseType: string;
  history: HistoryMessage[];
  onToken?: (delta: string) => void;
}

export const NOTHING_FOUND = "Nothing in the indexed documents matches this question.";

/**
 * The answer: from the LLM (stage "answer") with [n] citations when one is configured, else the
 * offline extractive answer. Without any passage there is nothing to cite, so no model is asked.
 */
export async function answerQuestion(
  services: KgragServices,
  question: string,
  built: BuiltContext,
  options: AnswerOptions,
): Promise<string> {
  if (built.context.chunks.length === 0 && built.context.communities.length === 0) return NOTHING_FOUND;
  if (!services.chat) return extractiveAnswer(question, built.context.chunks, built.references);
  const reply = await services.chat.chat({
    stage: "answer",
    messages: answerMessages(question, built.text, options),
    onToken: options.onToken,
  });
  return reply.text.trim();
}

export function answerMessages(question: string, context: string, options: AnswerOptions): ChatMessage[] {
  const system = renderPrompt("answer", {
    response_type: options.responseType,
    history: formatHistory(options.history),
    context,
  });
  return [
    { role: "system", content: system },
    { role: "user", content: question },
  ];
}

/** What the prompt costs before any context is added: the budget the context must leave free. */
export function promptOverheadTokens(question: string, options: AnswerOptions): number {
  const messages = answerMessages(question, "", options);
  return messages.reduce((sum, m) => sum + countTokens(m.content), 0);
}
