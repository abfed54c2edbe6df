/**
 * The two description summarizers: "llm" (map-reduce over the chat model) and "extractive" (the
 * offline built-in). Pick the LLM one when a chat model is configured.
 */
export { ExtractiveSummarizer } from "./extractive-summarizer.js";
export { LlmDescriptionSummarizer, type LlmSummarizerOptions } from "./llm-summarizer.js";
