import { z } from "zod";
import { ConfigError } from "./config-error.js";

export { ConfigError };

/** Tunables with the defaults of LightRAG/GraphRAG where ours follow theirs. */
export const ChunkingSchema = z.object({
  size: z.number().int().min(16).default(1200),
  overlap: z.number().int().min(0).default(100),
  encoding: z.enum(["o200k_base", "cl100k_base"]).default("o200k_base"),
});

export const ExtractionSchema = z.object({
  gleaning: z.number().int().min(0).max(5).default(1),
  entityTypes: z
    .array(z.string().min(1))
    .default(["person", "organization", "location", "event", "product", "concept", "technology", "work"]),
  /** "auto" answers in the language of the chunk, so Chinese text gets Chinese entities. */
  language: z.string().default("auto"),
  /** Attempts to get parseable output from the model for one chunk before it is marked failed. */
  parseAttempts: z.number().int().min(1).default(2),
});

export const MergeSchema = z.object({
  summaryMinFragments: z.number().int().min(2).default(8),
  summaryMinTokens: z.number().int().min(16).default(1200),
  /** Context window for one summary call; more fragments than fit are map-reduced. */
  summaryContextTokens: z.number().int().min(256).default(12000),
  summaryMaxTokens: z.number().int().min(32).default(600),
});

export const CommunitySchema = z.object({
  maxClusterSize: z.number().int().min(2).default(10),
  seed: z.number().int().default(42),
  reportContextTokens: z.number().int().min(256).default(8000),
  enabled: z.boolean().default(true),
});

/** The offline extractive answer (src/query/answer/): how sentences are chosen and weighed. */
export const ExtractiveAnswerSchema = z.object({
  /** Sentences quoted; three give a multi-hop question room for both of its hops without flooding. */
  sentences: z.number().int().min(1).default(3),
  /** Score multiplier added when a sentence holds the kind of answer asked for (a person for "who"). */
  kindBoost: z.number().min(0).default(1),
  /**
   * Weight of a question term found not in a passage but in the passages that name its subject:
   * the bridge of a two-hop question, reached through the entity that links them.
   */
  bridgeWeight: z.number().min(0).max(1).default(0.5),
  /** Weight of a question term that an already quoted sentence holds: later picks cover the rest. */
  repeatWeight: z.number().min(0).max(1).default(0.5),
});

export const QuerySchema = z.object({
  topK: z.number().int().min(1).default(40),
  chunkTopK: z.number().int().min(1).default(20),
  entityTokens: z.number().int().min(0).default(6000),
  relationshipTokens: z.number().int().min(0).default(8000),
  totalTokens: z.number().int().min(256).default(30000),
  similarityThreshold: z.number().min(-1).max(1).default(0.2),
  globalBatchTokens: z.number().int().min(256).default(12000),
  communityLevel: z.number().int().min(0).default(2),
  responseType: z.string().default("Multiple Paragraphs"),
  extractive: ExtractiveAnswerSchema.default(ExtractiveAnswerSchema.parse({})),
});

export const LlmSchema = z.object({
  baseURL: z.string().url().optional(),
  apiKey: z.string().min(1),
  model: z.string().min(1),
  concurrency: z.number().int().min(1).default(4),
  timeoutMs: z.number().int().min(100).default(120_000),
  maxRetries: z.number().int().min(0).default(5),
});

export const EmbeddingSchema = z.object({
  baseURL: z.string().url().optional(),
  apiKey: z.string().min(1),
  model: z.string().min(1),
  dimension: z.number().int().min(1).optional(),
  batchSize: z.number().int().min(1).default(32),
  concurrency: z.number().int().min(1).default(4),
  timeoutMs: z.number().int().min(100).default(60_000),
  maxRetries: z.number().int().min(0).default(5),
});

/** The schemes the Neo4j driver speaks; anything else fails inside the driver as "Unknown scheme". */
const NEO4J_URI = /^(bolt|neo4j)(\+s|\+ssc)?:\/\/[^/\s]/;

export const Neo4jSchema = z.object({
  uri: z
    .string()
    .regex(NEO4J_URI, "NEO4J_URI must be bolt:// or neo4j:// (or +s, +ssc), e.g. bolt://localhost:7687"),
  username: z.string().default("neo4j"),
  password: z.string().default(""),
  database: z.string().optional(),
  /**
   * Chunks merged per write transaction on Neo4j: each batch rewrites every entity it touches, and
   * the server caps a transaction's memory (db.memory.transaction.max), so batches stay smaller
   * than the embedded store's.
   */
  mergeBatchChunks: z.number().int().min(1).default(256),
});

/**
 * The embedded store's approximate-nearest-neighbour index over dense vectors (usearch HNSW files
 * beside the SQLite file). Defaults measured in bench/scale.ts; see the README's scale table.
 */
export const VectorIndexSchema = z.object({
  /** "auto": HNSW for dense vectors from `minVectors` up, exact below and for the hashing embedder. */
  kind: z.enum(["auto", "ann", "exact"]).default("auto"),
  minVectors: z.number().int().min(0).default(20_000),
  /** Stored precision of the index copy; f16 halves the file with no measurable recall loss. */
  quantization: z.enum(["f32", "f16"]).default("f16"),
  connectivity: z.number().int().min(4).default(16),
  expansionAdd: z.number().int().min(8).default(128),
  expansionSearch: z.number().int().min(8).default(64),
  /** Candidates fetched per result wanted, re-scored exactly from the stored vectors. */
  oversample: z.number().int().min(1).default(2),
  /** Vectors written since the index file was saved that a search still scores exactly; more rebuild it. */
  maxDelta: z.number().int().min(0).default(20_000),
  /** A scope of at most this many ids is scored exactly (pre-filter) instead of filtering the HNSW hits. */
  exactScopeMax: z.number().int().min(0).default(20_000),
});

export const STORAGE_KINDS = ["sqlite", "neo4j"] as const;

export const ConfigSchema = z
  .object({
    workspace: z.string().min(1).default("./kgrag-data"),
    storage: z.enum(STORAGE_KINDS).default("sqlite"),
    neo4j: Neo4jSchema.optional(),
    llm: LlmSchema.optional(),
    embedding: EmbeddingSchema.optional(),
    /** Dimension of the offline hashing embedder. */
    hashingDimension: z.number().int().min(16).default(512),
    chunking: ChunkingSchema.default(ChunkingSchema.parse({})),
    extraction: ExtractionSchema.default(ExtractionSchema.parse({})),
    merge: MergeSchema.default(MergeSchema.parse({})),
    community: CommunitySchema.default(CommunitySchema.parse({})),
    query: QuerySchema.default(QuerySchema.parse({})),
    vectorIndex: VectorIndexSchema.default(VectorIndexSchema.parse({})),
  })
  .superRefine((config, ctx) => {
    if (config.storage !== "neo4j") return;
    const start = "Start one with `docker compose up -d` (see docker-compose.yml).";
    if (!config.neo4j) {
      ctx.addIssue({
        code: "custom",
        path: ["neo4j"],
        message: `KGRAG_STORAGE=neo4j needs NEO4J_URI (and NEO4J_USERNAME, NEO4J_PASSWORD, optionally NEO4J_DATABASE). ${start}`,
      });
    } else if (!config.neo4j.password) {
      ctx.addIssue({
        code: "custom",
        path: ["neo4j", "password"],
        message: `KGRAG_STORAGE=neo4j needs NEO4J_PASSWORD (the compose file's password). ${start}`,
      });
    }
  });

export type KgragConfig = z.infer<typeof ConfigSchema>;
export type KgragConfigInput = z.input<typeof ConfigSchema>;
export type QueryConfig = z.infer<typeof QuerySchema>;
export type VectorIndexConfig = z.infer<typeof VectorIndexSchema>;
export type ExtractiveAnswerConfig = z.infer<typeof ExtractiveAnswerSchema>;

type Env = Record<string, string | undefined>;

function intFromEnv(env: Env, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value))
    throw new ConfigError(`${name} must be an integer, got ${JSON.stringify(raw)}`);
  return value;
}

/**
 * Reads the KGRAG_* variables (OPENAI_API_KEY and OPENAI_BASE_URL as fallbacks). No LLM model set
 * means the offline built-ins are used.
 */
export function configFromEnv(env: Env = process.env, overrides: KgragConfigInput = {}): KgragConfig {
  const llmModel = env.KGRAG_LLM_MODEL;
  const llmKey = env.KGRAG_LLM_API_KEY ?? env.OPENAI_API_KEY;
  const llmBase = env.KGRAG_LLM_BASE_URL ?? env.OPENAI_BASE_URL;
  const embModel = env.KGRAG_EMBEDDING_MODEL;
  checkChoice(env, "KGRAG_STORAGE", STORAGE_KINDS);
  checkChoice(env, "KGRAG_VECTOR_INDEX", VectorIndexSchema.shape.kind.unwrap().options);
  const input: KgragConfigInput = {
    workspace: env.KGRAG_WORKSPACE,
    storage: env.KGRAG_STORAGE as KgragConfigInput["storage"],
    neo4j: env.NEO4J_URI
      ? {
          uri: env.NEO4J_URI,
          username: env.NEO4J_USERNAME ?? "neo4j",
          password: env.NEO4J_PASSWORD ?? "",
          database: env.NEO4J_DATABASE,
        }
      : undefined,
    llm: llmModel
      ? {
          model: llmModel,
          // Local servers (Ollama, vLLM) accept any key; the client library insists on one.
          apiKey: llmKey || "not-needed",
          baseURL: llmBase,
          concurrency: intFromEnv(env, "KGRAG_LLM_CONCURRENCY"),
          timeoutMs: intFromEnv(env, "KGRAG_LLM_TIMEOUT_MS"),
        }
      : undefined,
    embedding: embModel
      ? {
          model: embModel,
          apiKey: env.KGRAG_EMBEDDING_API_KEY ?? llmKey ?? "not-needed",
          baseURL: env.KGRAG_EMBEDDING_BASE_URL ?? llmBase,
          dimension: intFromEnv(env, "KGRAG_EMBEDDING_DIM"),
          timeoutMs: intFromEnv(env, "KGRAG_LLM_TIMEOUT_MS"),
        }
      : undefined,
    vectorIndex: env.KGRAG_VECTOR_INDEX
      ? VectorIndexSchema.parse({ kind: env.KGRAG_VECTOR_INDEX })
      : undefined,
  };
  const merged = { ...stripUndefined(input), ...stripUndefined(overrides) };
  const parsed = ConfigSchema.safeParse(merged);
  if (!parsed.success) {
    throw new ConfigError(`Invalid kgrag configuration:\n${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

/** Names the variable and its allowed values; zod would only say "Invalid option ... at storage". */
function checkChoice(env: Env, name: string, allowed: readonly string[]): void {
  const raw = env[name];
  if (raw === undefined || allowed.includes(raw)) return;
  throw new ConfigError(`${name} must be one of ${allowed.join(", ")}; got ${JSON.stringify(raw)}.`);
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
