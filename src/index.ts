export type { KgragConfig, KgragConfigInput } from "./config.js";
export { ConfigSchema, configFromEnv } from "./config.js";
export type { Embedder } from "./embedding/embedder.js";
export type { ExtractionOutcome, Extractor } from "./extraction/extractor.js";
export type { ChatMessage, ChatModel, ChatRequest, ChatResponse, Stage } from "./llm/chat-model.js";
export type { DescriptionSummarizer } from "./merge/summarizer.js";
export type { GraphStore } from "./storage/graph-store.js";
export type * from "./types.js";
