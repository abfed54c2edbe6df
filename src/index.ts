// The package's public API: `import { createKgrag } from "kgrag"`.
export type { KgragConfig, KgragConfigInput } from "./config.js";
export { ConfigSchema, configFromEnv, type LoadedConfig, loadConfig } from "./config.js";
export { ConfigError } from "./config-error.js";
export type { GraphSchema, GraphSchemaInput } from "./cypher/schema.js";
export { loadSchema, parseGraphSchema } from "./cypher/schema.js";
export type { CypherValidation, ValidateOptions } from "./cypher/validator.js";
export { validateCypher } from "./cypher/validator.js";
export { EmbeddingDimensionError } from "./embedding/dimension-error.js";
export type { Embedder } from "./embedding/embedder.js";
export { HashingEmbedder } from "./embedding/hashing-embedder.js";
export { LangChainEmbedder, type LangChainEmbedderOptions } from "./embedding/langchain-embedder.js";
export { OpenAIEmbedder } from "./embedding/openai-embedder.js";
export {
  type DryRunReport,
  dryRunIndex,
  type EstimateContext,
  estimateIndexing,
  estimateUpdate,
  type IndexDryRunReport,
  type StageEstimate,
} from "./estimate/dry-run.js";
export type {
  ExtractionContext,
  ExtractionOutcome,
  Extractor,
  PartialExtraction,
} from "./extraction/extractor.js";
export { InvalidSourceDocumentError } from "./ingest/source-input.js";
export type { SkippedSource } from "./ingest/source-types.js";
export type { LangChainDocumentLike } from "./integrations/langchain/documents.js";
export { fromLangChainDocuments } from "./integrations/langchain/documents.js";
export type { KgragDocumentMetadata, KgragRetrieverInput } from "./integrations/langchain/kgrag-retriever.js";
export { KgragRetriever } from "./integrations/langchain/kgrag-retriever.js";
export type { KgragToolOptions } from "./integrations/langchain/kgrag-tool.js";
export { createKgragTool } from "./integrations/langchain/kgrag-tool.js";
export type { AgentAnswer, AgentQueryOptions, AgentSource } from "./integrations/query-for-agents.js";
export { queryForAgents } from "./integrations/query-for-agents.js";
export type { CreateKgragOptions, Kgrag, StatusReport } from "./kgrag.js";
export { createKgrag, KgragClosedError } from "./kgrag.js";
export type {
  ChatMessage,
  ChatModel,
  ChatRequest,
  ChatResponse,
  JsonSchemaSpec,
  Stage,
  TokenUsage,
} from "./llm/chat-model.js";
export { LangChainChatModel, type LangChainChatOptions } from "./llm/langchain-chat.js";
export { OpenAIChatModel } from "./llm/openai-chat.js";
export { RequestTimeoutError, RetriesExhaustedError } from "./llm/retry.js";
export type { StageUsage } from "./llm/usage.js";
export type { PricedStageUsage } from "./llm/usage-cost.js";
export { descriptionFragments, readableDescription } from "./merge/description-text.js";
export type { DescriptionSummarizer } from "./merge/summarizer.js";
export { OptionsError } from "./options-error.js";
export { type MetadataPatch, UnknownDocumentError } from "./pipeline/document-metadata.js";
export type { IndexComponents } from "./pipeline/index-workflow.js";
export type { IndexProgress } from "./pipeline/interrupted.js";
export { IndexInterruptedError } from "./pipeline/interrupted.js";
export type { StageTimings } from "./pipeline/stage-timings.js";
export { ScopeError, type ScopeProblem } from "./query/graph/scope.js";
export type {
  GraphRanking,
  HistoryMessage,
  QueryContextEvent,
  QueryMode,
  QueryOptionsInput as QueryOptions,
} from "./query/options.js";
export { QUERY_MODES } from "./query/options.js";
export type {
  ContextChunk,
  ContextCommunity,
  ContextEntity,
  ContextRelationship,
  QueryContext,
  QueryResult,
  Reference,
} from "./query/result.js";
export type { QueryUsage } from "./query/usage-meter.js";
export type { Reranker, RerankScore } from "./rerank/reranker.js";
export type { CandidatePair, Decision } from "./resolve/candidates.js";
export type {
  CurationErrorReason,
  EditOptions,
  EntityCuration,
  EntityInput,
  MergeOptions,
  RelationshipInput,
} from "./resolve/curation.js";
export { CurationInputError, UnknownEntityError } from "./resolve/curation.js";
export type { NameEvidence, NameRelation } from "./resolve/name-evidence.js";
export type { EntityRule } from "./resolve/rules.js";
export type { KgragServices } from "./services.js";
export type { GraphStore, VectorIndexStatus } from "./storage/graph-store.js";
export { Neo4jWorkspaceBusyError } from "./storage/neo4j/busy-error.js";
export type * from "./types.js";
export type { ProgressReporter } from "./util/progress.js";
export {
  BackupError,
  type BackupOptions,
  type BackupSummary,
  backupWorkspace,
  type RestoreSummary,
  restoreWorkspace,
} from "./workspace/backup.js";
export { EmbeddingMismatchError } from "./workspace/embedding-guard.js";
export type { IndexOptions, IndexSummary } from "./workspace/indexing.js";
export { WorkspaceBusyError } from "./workspace/lock.js";
