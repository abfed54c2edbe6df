import type { ChatMessage } from "../llm/chat-model.js";
import { renderPrompt } from "../llm/prompts.js";

export interface ExtractPromptOptions {
  entityTypes: string[];
  /** "auto" answers in the passage's language; anything else names the output language. */
  language: string;
}

export function languageInstruction(language: string): string {
  const rendered =
    language.trim().toLowerCase() === "auto"
      ? renderPrompt("extract-language-auto", {})
      : renderPrompt("extract-language", { language: language.trim() });
  return rendered.trim();
}

/** The first question for a chunk: the extraction prompt as one user message. */
export function extractMessages(options: ExtractPromptOptions, title: string, text: string): ChatMessage[] {
  const content = renderPrompt("extract", {
    entity_types: options.entityTypes.join(", "),
    language_instruction: languageInstruction(options.language),
    title: title.trim() || "(untitled)",
    text,
  });
  return [{ role: "user", content }];
}

/**
 * Continues the conversation after an unusable answer. The bad answer and the reason go into the
 * prompt, so each retry is a different prompt: the cached chat model would replay an identical one.
 */
export function retryMessages(previous: ChatMessage[], badAnswer: string, error: string): ChatMessage[] {
  return [
    ...previous,
    { role: "assistant", content: badAnswer },
    { role: "user", content: renderPrompt("extract-retry", { error }) },
  ];
}

/** Asks for what the previous answers missed, with those answers in the conversation. */
export function gleanMessages(
  previous: ChatMessage[],
  answer: string,
  options: ExtractPromptOptions,
): ChatMessage[] {
  const content = renderPrompt("glean", {
    entity_types: options.entityTypes.join(", "),
    language_instruction: languageInstruction(options.language),
  });
  return [...previous, { role: "assistant", content: answer }, { role: "user", content }];
}
