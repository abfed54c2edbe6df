import { dirname, resolve } from "node:path";
import { z } from "zod";
import { ConfigError } from "./config-error.js";
import { locateConfigFile, readConfigFile, withoutEditorSchema } from "./config-file/find-config.js";
import { deepMerge, hasPath, isPlainObject, leafPaths, type Plain, setPath } from "./config-file/layers.js";
import { knownKeysAt, unknownKeys } from "./config-file/unknown-keys.js";
import { OFFLINE_EXTRACTION_DEFAULTS } from "./extraction/offline-defaults.js";
import {
  MAX_ANSWER_SENTENCES,
  MAX_COMMUNITY_LEVEL,
  MAX_QUERY_CACHE_ENTRIES,
  MAX_QUESTION_CHARS,
  rankDepth,
  tokenBudget,
} from "./query/option-limits.js";
import { closestName } from "./util/closest-name.js";

export { ConfigError };

/** Tunables with the defaults of LightRAG/GraphRAG where ours follow theirs. */
export const ChunkingSchema = z.object({
  size: z.number().int().min(16).default(1200),
  overlap: z.number().int().min(0).default(100),
  encoding: z.enum(["o200k_base", "cl100k_base"]).default("o200k_base"),
});

/**
 * The offline NLP extractor's yield per chunk. Relationships are the bulk of an offline graph
 * (each is merged, embedded and indexed for full text): fewer per chunk index faster, at some
 * cost to what multi-hop questions can follow.
 */
export const OfflineExtractionSchema = z.object({
  /** Entities kept per chunk, names before noun phrases, frequent before rare. */
  maxEntitiesPerChunk: z.number().int().min(1).default(OFFLINE_EXTRACTION_DEFAULTS.maxEntitiesPerChunk),
  /** Co-occurrence relationships kept per chunk, strongest first. */
  maxRelationshipsPerChunk: z
    .number()
    .int()
    .min(0)
    .default(OFFLINE_EXTRACTION_DEFAULTS.maxRelationshipsPerChunk),
  /** Sentences quoted in an entity's description from one chunk. */
  sentencesPerEntity: z.number().int().min(1).default(OFFLINE_EXTRACTION_DEFAULTS.sentencesPerEntity),
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
  /** The offline NLP extractor (used when no model is configured). */
  offline: OfflineExtractionSchema.prefault({}),
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
  /**
   * A re-clustered community keeps the id of the previous run's community at its level when they
   * share at least this share of their members together (Jaccard), so citations, bookmarks and API
   * links survive a document that moved a few members. 1 keeps an id only for the same members.
   */
  keepIdOverlap: z.number().gt(0).max(1).default(0.5),
  /** Retired ids remembered with the community that took over their members (0: none). */
  retiredIdAliases: z.number().int().min(0).default(1000),
  /**
   * Re-clustering starts from the previous hierarchy: a connected component whose nodes and edges
   * did not change keeps its communities outright, another starts from them and moves only what
   * the change reaches, so that only the reports of communities that really changed are written
   * again. Off: every re-clustering starts from scratch (as `kgrag communities --rebuild --fresh`).
   */
  warmStart: z.boolean().default(true),
  /**
   * A warm-started component keeps its partition unless its modularity is lower than a fresh
   * clustering's by more than this (then the fresh one is taken, and the run says so).
   */
  warmStartTolerance: z.number().min(0).max(1).default(0.02),
});

/** The offline extractive answer (src/query/answer/): how sentences are chosen and weighed. */
export const ExtractiveAnswerSchema = z.object({
  /** Sentences quoted; three give a multi-hop question room for both of its hops without flooding. */
  sentences: z.number().int().min(1).max(MAX_ANSWER_SENTENCES).default(3),
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

/** Constants of the graph and passage ranking (src/query), with the reasons for their defaults there. */
export const RankingSchema = z.object({
  /**
   * Probability that the personalised PageRank walk follows an edge rather than returning to a
   * seed. At 0.5 a walk takes one step on average and reaches two hops a quarter of the time, as
   * HippoRAG uses for multi-hop retrieval; PageRank's 0.85 drifts into dense clusters.
   */
  pagerankDamping: z.number().gt(0).lt(1).default(0.5),
  /** Seeds weighing under this share of the strongest are not expanded (a hub would load thousands of edges). */
  expandedSeedShare: z.number().min(0).max(1).default(0.01),
  /** The k of reciprocal rank fusion, 1 / (k + rank): 60 as in Cormack et al. (2009). */
  fusionK: z.number().min(0).default(60),
  /** BM25 relationship hits under this share of the best one are dropped before fusion. */
  textHitFloor: z.number().min(0).max(1).default(0.05),
  /**
   * How global's matched relationships weigh as walk seeds. "score": each list's scores min-max
   * normalised (the weakest kept hit at relationshipSeedFloor) and summed with its weight
   * (normalizedScoreFusion), so a relationship that matches the question's rare names outweighs one
   * that matches only its common words. "rank": weighted reciprocal rank fusion, whose weights
   * barely fall with rank (1/61 ... 1/100 over 40 hits), so the weak matches that fill the list
   * carried most of the restart mass (measured on every set and the 6x haystack: docs/query.md).
   */
  relationshipSeedWeight: z.enum(["score", "rank"]).default("score"),
  /**
   * With "score", what the weakest kept relationship hit weighs (the best weighs 1): min-max alone
   * gives it 0, so a hit that passed every cut would not seed the walk at all.
   */
  relationshipSeedFloor: z.number().min(0).max(1).default(0.05),
});
export type RankingConfig = z.infer<typeof RankingSchema>;
export type OfflineExtractionConfig = z.infer<typeof OfflineExtractionSchema>;
/**
 * Weights of the weighted reciprocal rank fusions (src/query/fusion.ts) of a lexical and a dense
 * ranking, measured on every set of bench/retrieval-sets.ts (docs/query.md). 0 leaves one out.
 */
export const FusionSchema = z.object({
  /** naive: BM25 over the chunk text. */
  text: z.number().min(0).default(1),
  /** naive: chunk vector search with a semantic embedder (paraphrases BM25 cannot match). */
  vector: z.number().min(0).default(1),
  /**
   * naive and global's relationship matching: vector search with the offline hashing embedder,
   * which only measures word overlap, a noisier copy of the BM25 ranking. At 0 (measured best on
   * every set: any weight pulled BM25's ranking down) the search is not run.
   */
  hashingVector: z.number().min(0).default(0),
  /** global: BM25 over relationship text, fused with the relationship vectors. */
  relationshipText: z.number().min(0).default(1),
  /**
   * hybrid: the passages the graph walks found, ordered by the question's BM25 over them, are
   * interleaved between local's and global's (src/query/modes/passage-evidence.ts). Off: local's
   * and global's passages only, as before issue 15.
   */
  graphPassageText: z.boolean().default(true),
  /**
   * hybrid: the corpus's first n passages by the question's BM25 join the walks' passages in that
   * question order (one BM25, so their scores compare). The walks reach passages through entities;
   * a passage that says what was asked but whose entities the walks did not reach was missing, and
   * hybrid fell under naive at @8 and @10 on wiki-vital-en (docs/query.md). 0: the walks' only.
   */
  hybridCorpusPassages: rankDepth(0).default(3),
  /**
   * hybrid and mix: how far down two rankings look for agreement on the first passage. Local's
   * first passage stays first when the question's BM25 ranks it in this many; otherwise BM25's
   * first passage leads when a graph walk ranks it in this many (passage-evidence.ts). 0: off.
   */
  agreedLeadDepth: rankDepth(0).default(10),
  /**
   * hybrid and mix: when the question's BM25 does not list local's first passage at all (no word
   * of the question behind the walk's head), the BM25 order goes first in the interleave instead
   * of second (passage-evidence.ts). Lifted songci-zh's MRR above naive's for mix; no change on
   * the English sets (docs/query.md).
   */
  textFirstWithoutSupport: z.boolean().default(true),
});

/**
 * Small-to-Big (parent/child chunks): every chunk's sentences are indexed on their own, and naive
 * retrieval fuses the sentence-level BM25 ranking (each chunk at its best sentence's rank) with the
 * passage-level one, so a question matching one sentence of a long passage still ranks it.
 * Measured on every set of bench/retrieval-sets.ts (docs/query.md).
 */
export const SmallToBigSchema = z.object({
  enabled: z.boolean().default(false),
  /** Weight of the sentence ranking in the fusion with the passage ranking (weight 1). */
  weight: z.number().min(0).default(1),
});
export type SmallToBigConfig = z.infer<typeof SmallToBigSchema>;

export const QuerySchema = z.object({
  /** Upper bounds of the numeric settings: src/query/option-limits.ts. */
  topK: rankDepth().default(40),
  chunkTopK: rankDepth().default(20),
  entityTokens: tokenBudget(0).default(6000),
  relationshipTokens: tokenBudget(0).default(8000),
  totalTokens: tokenBudget(256).default(30000),
  similarityThreshold: z.number().min(-1).max(1).default(0.2),
  globalBatchTokens: tokenBudget(256).default(12000),
  communityLevel: z.number().int().min(0).max(MAX_COMMUNITY_LEVEL).default(2),
  responseType: z.string().default("Multiple Paragraphs"),
  extractive: ExtractiveAnswerSchema.prefault({}),
  ranking: RankingSchema.prefault({}),
  fusion: FusionSchema.prefault({}),
  smallToBig: SmallToBigSchema.prefault({}),
  /**
   * Questions whose offline keywords are remembered (0: none): the tagger's answer depends on the
   * text alone, and it is about a tenth of an offline query's CPU. Emptied whole past the cap.
   */
  offlineKeywordCache: z.number().int().min(0).max(MAX_QUERY_CACHE_ENTRIES).default(1000),
  /**
   * Offline keywords keep the workspace's entity names whole in a Chinese question (jieba would cut
   * 青岚科技 into 青岚 / 科技): spans of up to `maxChars` Han characters, at most `maxCandidates` of
   * them per question, are looked up as entity names in one store read.
   */
  questionNames: z
    .object({
      maxChars: z.number().int().min(2).max(64).default(12),
      maxCandidates: z.number().int().min(0).max(100_000).default(2000),
    })
    .prefault({}),
  /**
   * Longest question taken, in characters: a question is not a document, and a pasted megabyte
   * would tie up keyword extraction, search and tokenizing for a long time. Longer ones are refused.
   */
  maxQuestionChars: z.number().int().min(1).max(MAX_QUESTION_CHARS).default(10_000),
});

/** Price per million tokens: the cost `kgrag index --dry-run` estimates and an index run reports. */
export const PriceSchema = z.object({
  inputPerMillion: z.number().min(0).default(0),
  outputPerMillion: z.number().min(0).default(0),
});
export type Price = z.infer<typeof PriceSchema>;

/** What any model endpoint may set besides its address: where its key is, its throttles, its price. */
const EndpointFields = {
  /** The environment variable holding the API key, so that the key itself stays out of the file. */
  apiKeyEnv: z.string().min(1).optional(),
  /** Token-bucket throttles shared by every stage that uses the same endpoint and model. */
  requestsPerMinute: z.number().positive().optional(),
  /** Prompt plus completion tokens per minute. */
  tokensPerMinute: z.number().positive().optional(),
  price: PriceSchema.optional(),
};

/** Sent with every chat request of a stage when set; otherwise each stage's own choice stands. */
const ChatTuningFields = {
  temperature: z.number().min(0).max(2).optional(),
  maxOutputTokens: z.number().int().min(1).optional(),
};

export const LlmSchema = z.object({
  baseURL: z.string().url().optional(),
  /** Local servers (Ollama, vLLM) accept any key; unset sends a placeholder. */
  apiKey: z.string().min(1).optional(),
  /**
   * The chat model kgrag's OpenAI-compatible client asks. Needed only for that client: leave it out
   * when createKgrag is given a chat model object (the rest of `llm`, concurrency..., still applies).
   */
  model: z.string().min(1).optional(),
  concurrency: z.number().int().min(1).default(4),
  timeoutMs: z.number().int().min(100).default(120_000),
  maxRetries: z.number().int().min(0).default(5),
  ...EndpointFields,
  ...ChatTuningFields,
});

/** A stage's own model: every field left out comes from `llm`, the default model. */
export const StageModelSchema = z.object({
  baseURL: z.string().url().optional(),
  apiKey: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  concurrency: z.number().int().min(1).optional(),
  timeoutMs: z.number().int().min(100).optional(),
  maxRetries: z.number().int().min(0).optional(),
  ...EndpointFields,
  ...ChatTuningFields,
});

/** The stages a config file can give their own model (src/llm/stage-models.ts maps them to request stages). */
export const StagesSchema = z.object({
  /** Extraction and its gleaning rounds. */
  extraction: StageModelSchema.optional(),
  summaries: StageModelSchema.optional(),
  reports: StageModelSchema.optional(),
  keywords: StageModelSchema.optional(),
  answers: StageModelSchema.optional(),
  globalMap: StageModelSchema.optional(),
  globalReduce: StageModelSchema.optional(),
  text2cypher: StageModelSchema.optional(),
  /** Confirmation of borderline alias pairs by entity resolution. */
  entityResolution: StageModelSchema.optional(),
});

/**
 * What `kgrag index --dry-run` cannot know before a model answers. Chunks and extraction prompts
 * are computed; the model's graph is stood in for by the offline extractor (which names repeat
 * across chunks comes from the text), and these say how much a model writes. The defaults are
 * those of bench/dry-run-accuracy.ts; set them from one real run of your own for your model.
 */
export const EstimateSchema = z.object({
  /** Entities a model names in one chunk, at most: the stand-in keeps the offline extractor's best-ranked this many. */
  entitiesPerChunk: z.number().int().min(0).default(12),
  /** Relationships a model names in one chunk, at most (the stand-in's strongest). */
  relationshipsPerChunk: z.number().int().min(0).default(12),
  /** Tokens of one description a model writes: the stand-in's descriptions are cut to this. */
  descriptionTokens: z.number().int().min(1).default(40),
  /** A gleaning answer's tokens as a share of the extraction answer's. */
  gleaningOutputShare: z.number().min(0).default(0.35),
  /** Tokens of one description summary (at most merge.summaryMaxTokens). */
  summaryOutputTokens: z.number().int().min(1).default(300),
  /** Tokens of one community report's answer. */
  reportOutputTokens: z.number().int().min(1).default(450),
  /** Tokens of one entity-resolution verdict ({"same", "reason"}). */
  resolveOutputTokens: z.number().int().min(1).default(40),
});

export const EmbeddingSchema = z.object({
  baseURL: z.string().url().optional(),
  apiKey: z.string().min(1).optional(),
  /** Needed only for kgrag's OpenAI-compatible embedder: leave it out when createKgrag is given an embedder. */
  model: z.string().min(1).optional(),
  dimension: z.number().int().min(1).optional(),
  batchSize: z.number().int().min(1).default(32),
  concurrency: z.number().int().min(1).default(4),
  timeoutMs: z.number().int().min(100).default(60_000),
  maxRetries: z.number().int().min(0).default(5),
  ...EndpointFields,
});

/**
 * An optional reranker (a Jina / Cohere style `/rerank` endpoint) that reorders the candidate
 * passages of naive, local and mix queries before the context budget; on when configured.
 */
export const RerankSchema = z.object({
  baseURL: z.string().url(),
  apiKey: z.string().optional(),
  model: z.string().min(1),
  timeoutMs: z.number().int().min(100).default(30_000),
  /** Passages kept after reranking (default: all the candidates, reordered). */
  topN: z.number().int().min(1).optional(),
});

/** The schemes the Neo4j driver speaks; anything else fails inside the driver as "Unknown scheme". */
const NEO4J_URI = /^(bolt|neo4j)(\+s|\+ssc)?:\/\/[^/\s]/;

/** A procedure's qualified name as CALL takes it (namespace.name), without backticks. */
const PROCEDURE_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$/;

export const Neo4jSchema = z.object({
  uri: z
    .string()
    .regex(NEO4J_URI, "NEO4J_URI must be bolt:// or neo4j:// (or +s, +ssc), e.g. bolt://localhost:7687"),
  username: z.string().default("neo4j"),
  password: z.string().default(""),
  database: z.string().optional(),
  /**
   * Send the Bolt chunks a message is packed into with one socket write per tick instead of one
   * per 1,400-byte chunk (see src/storage/neo4j/bolt-write-batching.ts): large writes (vectors)
   * cost the server less. Off restores the driver's own behaviour.
   */
  batchBoltWrites: z.boolean().default(true),
  /**
   * Chunks merged per write transaction on Neo4j: each batch rewrites every entity it touches, and
   * the server caps a transaction's memory (db.memory.transaction.max), so batches stay smaller
   * than the embedded store's.
   */
  mergeBatchChunks: z.number().int().min(1).default(256),
  /**
   * Documents registered (record and chunks) or given their final status per write transaction:
   * a commit per document made those steps most of an index run on a server.
   */
  documentBatch: z.number().int().min(1).default(500),
  /**
   * A registration transaction is cut earlier once it holds this many chunks: the chunks' text is
   * most of its size, and a batch of long documents must stay within the transaction memory.
   */
  documentBatchChunks: z.number().int().min(1).default(5000),
  /**
   * Rows per UNWIND statement of a write (chunks, mentions, entities, vectors...): fewer round
   * trips against a bigger statement on the server's heap.
   */
  writeBatchRows: z.number().int().min(1).default(1000),
  /**
   * Change sets arriving together (each one summary or one rebuilt record) applied per write
   * transaction, so a full transaction stays well within the server's transaction memory.
   */
  changeSetBatch: z.number().int().min(1).default(500),
  /**
   * History entries kept per History node (as JSON): a node per entry made the history most of
   * the nodes an index run's merges create.
   */
  historyPageEntries: z.number().int().min(1).default(1000),
  /**
   * Vectors written per transaction by the embedding steps (they still embed in steps of 256): each
   * commit also updates the vector index, and a commit per step made embedding most of a run. The
   * index's upkeep (Lucene segments and their merges) is cheapest in between, but not smoothly
   * (bench/neo4j-vector-index.ts, server CPU s: 20,000 vectors 11.3 at 2,000 per commit, 6.3 at
   * 500, 18.6 at 250; 48,000 vectors 33.4 at 2,000, 18.6 at 1,000, about 56 at 500 and below).
   */
  vectorBatch: z.number().int().min(1).default(1000),
  /**
   * HNSW settings of the vector indexes kgrag creates (an existing index keeps its own): links per
   * vector and candidates weighed per insert. Keeping the index up to date is most of what writing
   * vectors costs the server; fewer candidates cost less and find fewer true neighbours
   * (bench/neo4j-vector-index.ts measures both).
   */
  vectorIndexM: z.number().int().min(2).max(512).default(16),
  vectorIndexEfConstruction: z.number().int().min(1).max(3200).default(100),
  /** Community reports saved per transaction as they are written (the embedded store saves 64). */
  reportBatch: z.number().int().min(1).default(500),
  /**
   * Queries rank chunk text with an in-memory BM25 index (as the embedded store ranks it) while the
   * workspace holds at most this many chunks; larger ones use Lucene, whose ranking differs.
   */
  inMemoryTextChunks: z.number().int().min(0).default(200_000),
  /** The same for relationship text (their postings would cost hundreds of megabytes above it). */
  inMemoryTextRelationships: z.number().int().min(0).default(500_000),
  /**
   * Vector namespaces of at most this many floats (vectors x dimension; 4 bytes each in memory) are
   * ranked by exact cosine in the kgrag process; larger ones by the server (exact Cypher or its index).
   * Only a namespace larger than this gets a server vector index (whose upkeep is most of what
   * writing vectors costs the server); an index that exists is kept. At 16 M, HotpotQA-100's 48,169
   * relationship vectors (512 dimensions: 24.7 M floats, 99 MB) got an HNSW index whose inserts
   * were over half of the embed stage's server CPU; the embedded store ranks them exactly in memory.
   */
  inMemoryVectorFloats: z.number().int().min(0).default(32_000_000),
  /**
   * The offline hashing embedder's vectors are ranked in memory whatever their number, as the
   * embedded store ranks them (its column scan touches only a query's ~100 non-zero dimensions),
   * so they never get a server vector index: the index's recall on them is poor, and at the 6x
   * haystack (222,641 relationship vectors) its upkeep was about half of the server's CPU for an
   * index run. False treats them like a model's vectors (`inMemoryVectorFloats` decides).
   */
  hashingVectorsInMemory: z.boolean().default(true),
  /**
   * Procedures the read-only Cypher runner (`kgrag cypher`, the server's and MCP's Cypher,
   * Text2Cypher's execution) may call besides its own list, e.g. APOC's apoc.meta.schema: you
   * vouch that they only read. Exact names; EXPLAIN must still plan each query as a read.
   */
  readOnlyProcedures: z
    .array(z.string().regex(PROCEDURE_NAME, "a procedure's full name, e.g. apoc.meta.schema"))
    .default([])
    .describe("procedures the read-only Cypher runner may also call; you vouch that they only read"),
});

/**
 * Candidate pairs from the similarity of the entities' name-and-description vectors, besides name
 * evidence. Such a pair is never merged on similarity alone: with graph evidence and no conflict it
 * goes to the confirmation model, or to `kgrag entities list --duplicates` without one.
 */
export const ResolutionSimilaritySchema = z.object({
  enabled: z.boolean().default(true),
  /** Cosine similarity from which two entity vectors of an embedding model make a pair. */
  minScore: z.number().min(0).max(1).default(0.9),
  /**
   * The same for the offline hashing embedder, whose word-count vectors score lower: on the
   * Christmas Carol set its one true pair scores 0.64, the closest different pair 0.44
   * (bench/entity-resolution.ts).
   */
  minScoreHashing: z.number().min(0).max(1).default(0.5),
  /** Nearest entities looked at per entity. */
  neighbours: z.number().int().min(1).max(100).default(5),
});

/** Index-time entity resolution (src/resolve/): when two extracted names count as one entity. */
export const ResolutionSchema = z.object({
  /** Neighbours two names must share when one is only part of the other ("Tim" and "Tiny Tim"). */
  minSharedNeighbours: z.number().int().min(1).default(2),
  /** A word shared by more entities than this is too common to pair names on. */
  maxBlockSize: z.number().int().min(2).default(200),
  /** Passes over the graph: a merge can give the next pair the shared neighbours it lacked. */
  rounds: z.number().int().min(1).default(3),
  /** With a chat model, pairs the evidence leaves open are asked about (stage "resolve"). */
  confirmWithModel: z.boolean().default(true),
  similarity: ResolutionSimilaritySchema.prefault({}),
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
  /**
   * Candidates kept while inserting: construction cost grows with it. At 200k clustered 768-d
   * vectors (bench/hnsw-build.ts) 64 costs 0.59 ms CPU per vector against 1.01 ms at 128 (0.34
   * against 0.83 at 50k), and recall@20 is 0.99 with a search expansion of 128 (0.92 at 64).
   */
  expansionAdd: z.number().int().min(8).default(64),
  /**
   * Main files of at least this many vectors are built denser (largeConnectivity, largeExpansionAdd).
   * With 16 / 64 recall@20 is 0.98 to 0.99 up to 200k clustered 768-d vectors but 0.80 at 1M, where
   * 32 / 128 gives 0.996 at the same search cost (README, scale: session 15) for 2.5 to 3x the
   * insertion cost. Segments stay below it, so additions never pay that: only folds and builds
   * (folds in the background by default) do. A main file built with either setting is used as it
   * is; one whose size now calls for the other degree is rebuilt at its next fold. 0: never.
   */
  largeFileVectors: z.number().int().min(0).default(250_000),
  /**
   * Files (most often segments: each addition saves one) of fewer vectors than this are built with
   * smallExpansionAdd candidates on insert: 20k clustered 768-d vectors cost 0.18 ms CPU per vector
   * at 32 against 0.40 at 64, recall@20 0.998 against 1.0; at 100k, 32 falls to 0.944
   * (bench/hnsw-build.ts). 0: none.
   */
  smallFileVectors: z.number().int().min(0).default(25_000),
  smallExpansionAdd: z.number().int().min(8).default(32),
  largeConnectivity: z.number().int().min(4).default(32),
  largeExpansionAdd: z.number().int().min(8).default(128),
  /** Candidates kept while searching; 128 costs about the same per query as 64 at 200k vectors. */
  expansionSearch: z.number().int().min(8).default(128),
  /** Threads adding vectors to a file being built or updated; 0 uses every core. */
  buildThreads: z.number().int().min(0).default(0),
  /**
   * A file (main or segment) takes its vectors on one thread until it holds this many. usearch's
   * concurrent add can leave a node that no search reaches (unum-cloud/USearch#735), most often
   * while the graph is small: 16-d clustered sets on 2 threads lost about 1 node per build of 400
   * vectors and 2-8 per 10,000; one thread lost none, and starting on one thread up to 4,096 lost
   * 0-3 per 10,000 (bench/hnsw-build.ts --reachability). Decided per batch of 2,048 vectors: a
   * batch that starts below the threshold is added on one thread whole.
   */
  serialBuildBelow: z.number().int().min(0).default(4096),
  /** Candidates fetched from the index per result wanted (spares for deleted, updated or filtered-out rows). */
  oversample: z.number().int().min(1).default(2),
  /**
   * Candidates re-scored exactly from their stored vectors per result wanted, the index's best
   * first: each is a random row read. At 100k clustered 768-d chunks (f16, search expansion 128)
   * re-scoring 1 x 20 instead of 2 x 20 gave recall@20 0.977 against 0.978.
   */
  rescore: z.number().min(1).default(1),
  /**
   * Rows written since the main HNSW file was saved go into small segment files beside it while
   * they (with the removals since) are at most this share of it; past it, or past maxSegments
   * segments, they are folded into the main file, which means loading and saving it whole. 0:
   * always fold. At 1M chunks, adding 10k rewrote three main files: most of the 150 s it took.
   */
  segmentShare: z.number().min(0).max(1).default(0.1),
  /** Segment files beside a main file before the next refresh folds them into it. */
  maxSegments: z.number().int().min(0).default(4),
  /**
   * A fold that falls due is left to a process of its own, started after the refresh, at low
   * priority (foldNice): the refresh saves one more segment instead, so a writer never waits for a
   * main file to be loaded, extended and saved (at 1M chunks, 80-110 s of an addition that took
   * 45 s otherwise). Searches use the segments until the folded file replaces them. false: fold in
   * the writer, as before.
   */
  foldInBackground: z.boolean().default(true),
  /**
   * Segments a namespace may gather while background folds lag behind (one failed, or writes come
   * faster than folds end); past this the writer folds itself.
   */
  maxSegmentsWhileFolding: z.number().int().min(0).default(12),
  /** Niceness of the background fold process (0 to 19; higher yields more to other work). */
  foldNice: z.number().int().min(0).max(19).default(10),
  /**
   * Index files and manifest drafts that no manifest names (a process killed between writing one
   * and switching the manifest) are removed when a main file is saved, once untouched this long.
   */
  orphanFileMinutes: z.number().min(1).default(60),
  /** Vectors written since the index file was saved that a search still scores exactly; more rebuild it. */
  maxDelta: z.number().int().min(0).default(20_000),
  /** A scope of at most this many ids is scored exactly (pre-filter) instead of filtering the HNSW hits. */
  exactScopeMax: z.number().int().min(0).default(20_000),
});

/**
 * How the embedded store's full-text search reads its postings (FTS5 hands over every row a term
 * matches, and scoring them all is the cost of a search).
 */
export const SqliteSearchSchema = z.object({
  /**
   * Postings a chunk search may read: the question's terms rarest first while they fit, and always
   * the rarest one. A term in most passages weighs next to nothing in BM25 but costs a read of all
   * of them: at 1M synthetic chunks, four such words of one question were 4M postings and 13 s.
   * Below the budget nothing is left out, so corpora of a few thousand passages rank as before.
   */
  chunkPostingBudget: z.number().int().min(1).default(100_000),
});

/**
 * What the embedded store keeps in memory between reads while the data is unchanged (repeat
 * queries read the same seeds, hubs and passages). Beyond a cap a cache is cleared whole, so
 * memory stays bounded on huge graphs.
 */
export const SqliteReadCacheSchema = z.object({
  /** Entity records (see storage/sqlite/entity-cache.ts). */
  maxEntities: z.number().int().min(0).default(100_000),
  /** Full relationship records (the bare edges are held apart: see maxWholeGraphEdges). */
  maxRelationships: z.number().int().min(0).default(100_000),
  /**
   * The bare edges of every relationship (key, ends, weight) are held in memory for walks and
   * neighbourhoods while the graph has at most this many. A larger graph's edges are read per
   * entity as queries touch them, and what was read is dropped all at once past this many: at 2M
   * relationships the whole graph took 45 s to read and most of a 10 GB process.
   */
  maxWholeGraphEdges: z.number().int().min(0).default(500_000),
  /** Documents read one by one (a query reads its passages' documents for titles and pages). */
  maxDocuments: z.number().int().min(0).default(10_000),
  /** Chunk records read by id (a query reads the text of the passages it puts in its context). */
  maxChunks: z.number().int().min(0).default(10_000),
  /** Row-to-key lookups of full-text hits (chunks and relationships, each kind apart). */
  maxSearchHitIds: z.number().int().min(0).default(100_000),
  /**
   * Entity full-text searches remembered with their hits while the data is unchanged: a query
   * searches each keyword, and keywords (names above all) recur from question to question.
   */
  maxEntitySearches: z.number().int().min(0).default(10_000),
  /**
   * Keep the relationship graph numbered in typed arrays per data version for the PageRank walks
   * (GraphStore.walkAdjacency), about the size of the bare edges already held. Off: every walk
   * reads edge objects.
   */
  walkAdjacency: z.boolean().default(true),
  /**
   * Walks a data version serves from edge objects before its numbered graph is built: building
   * visits every edge (tens of milliseconds on 48,000 edges on a busy machine, several walks'
   * saving), so while an index run commits every few hundred milliseconds most versions never
   * pay for one. 0: built on the first walk.
   */
  walkAdjacencyAfterWalks: z.number().int().min(0).default(16),
});

/**
 * How an index run overlaps its own work with the model's: what it does while requests are in
 * flight, and in what steps (README "Model kept busy").
 */
export const IndexOverlapSchema = z.object({
  /**
   * Chunks whose full-text rows are indexed per slice while the model extracts (embedded store);
   * a reply that arrives meanwhile waits for one slice. 0 leaves the chunk text for the run's end.
   */
  chunkTextRowsPerSlice: z.number().int().min(0).default(2),
  /**
   * Pause after each slice, so the requests of the replies that came meanwhile go out first; and
   * before the first slice (and the clustering libraries' load), after the first extraction starts.
   */
  chunkTextPauseMs: z.number().int().min(0).default(20),
  /**
   * With a model extracting, the first slice (and the clustering libraries' load) waits until the
   * first round of extraction requests (one per concurrent call) has been written to its sockets,
   * at most this long: started earlier, that synchronous work held those requests back on their
   * way out. Requests through transports other than Node's fetch are not seen and wait it out.
   */
  firstRoundWaitMs: z.number().int().min(0).default(1000),
  /**
   * Community reports asked for while entity resolution runs, on the bet that it merges nothing
   * (see src/pipeline/reports-ahead.ts): each is a request wasted when it does merge. 0: none.
   */
  reportsAhead: z.number().int().min(0).default(8),
  /**
   * Chunks at which an index run's first registration transaction is cut: extraction starts on
   * them while the other documents are chunked and stored. 0: every document is registered first.
   */
  firstRegistrationChunks: z.number().int().min(0).default(16),
});

/**
 * The offline built-ins (NLP extractor, hashing embedder) do their work on a worker thread during
 * large runs, so the main thread merges, stores and builds communities meanwhile and a second core
 * is used (README "Offline indexing of real corpora"). Results are the same either way.
 */
export const BuiltInThreadSchema = z.object({
  enabled: z.boolean().default(true),
  /**
   * Chunks a run extracts in-process before handing the rest to the thread: a small run never pays
   * for starting it (about half a second to load the NLP models). A run known to have more
   * documents than this hands every chunk to the thread from the first.
   */
  inProcessChunks: z.number().int().min(0).default(256),
  /** Texts embedded in-process before large embedding calls go to the thread (at once while it runs). */
  inProcessTexts: z.number().int().min(0).default(4096),
  /** Embedding calls of fewer texts stay in-process (a question's vector never waits behind a batch). */
  minEmbedTexts: z.number().int().min(1).default(64),
  /**
   * Graphs of fewer relationships are clustered in-process: starting the thread costs more than
   * clustering them (wiki-vital-en's 277,104 relationships: about 14 s of clustering).
   */
  minClusterEdges: z.number().int().min(0).default(20_000),
  /**
   * Offline reports are written on a thread of their own (with a copy of the graph) when a run
   * has at least this many to write; fewer are written in-process, cheaper than the copy.
   */
  minThreadReports: z.number().int().min(0).default(1000),
  /** Offline reports asked of that thread at once (two such batches in flight). */
  reportsPerRequest: z.number().int().min(1).default(256),
  /** Chunks handed to the thread ahead, so it keeps extracting while a merge batch commits. */
  chunksInFlight: z.number().int().min(2).default(4096),
  /** The thread ends after this long without work (it is started again when needed). */
  idleMs: z.number().int().min(0).default(10_000),
});

export const STORAGE_KINDS = ["sqlite", "neo4j"] as const;

export const ConfigSchema = z
  .object({
    workspace: z.string().min(1).default("./kgrag-data"),
    storage: z.enum(STORAGE_KINDS).default("sqlite"),
    neo4j: Neo4jSchema.optional(),
    llm: LlmSchema.optional(),
    embedding: EmbeddingSchema.optional(),
    rerank: RerankSchema.optional(),
    /** Dimension of the offline hashing embedder. */
    hashingDimension: z.number().int().min(16).default(512),
    /**
     * Page size in bytes of a NEW workspace's SQLite file (an existing file keeps the size it was
     * made with). A 512-dimension vector row is about 2.1 KB: at 4 KB pages only one fits a page,
     * so every vector write moved twice its bytes; at 16 KB seven do (README "Offline indexing").
     */
    sqlitePageSize: z
      .number()
      .int()
      .min(512)
      .max(65536)
      .refine((n) => (n & (n - 1)) === 0, "a power of two")
      .default(16384),
    /**
     * While a process writes the SQLite workspace, its write-ahead log is copied into the file
     * every this many ms, on a thread of its own: the disk writes of an index run spread over the
     * run instead of waiting, all together, in the checkpoint after its last writes (README "Model
     * kept busy"). 0: only after a run and on close.
     */
    sqliteCheckpointEveryMs: z.number().int().min(0).default(1000),
    chunking: ChunkingSchema.prefault({}),
    extraction: ExtractionSchema.prefault({}),
    merge: MergeSchema.prefault({}),
    community: CommunitySchema.prefault({}),
    query: QuerySchema.prefault({}),
    /** Per-stage models; a stage not named here uses `llm`. */
    stages: StagesSchema.optional(),
    /** A folder of prompt files replacing the built-in prompts of the same name. */
    prompts: z.string().min(1).optional(),
    estimate: EstimateSchema.prefault({}),
    /**
     * Merge aliases at index time. "auto" (default) resolves LLM extractions only: on the offline
     * extractor's noisy names and types it cost retrieval (README, bench/entity-resolution.ts).
     * "off": only hand-made merges apply.
     */
    entityResolution: z.enum(["auto", "on", "off"]).default("auto"),
    resolution: ResolutionSchema.prefault({}),
    vectorIndex: VectorIndexSchema.prefault({}),
    sqliteReadCache: SqliteReadCacheSchema.prefault({}),
    sqliteSearch: SqliteSearchSchema.prefault({}),
    indexOverlap: IndexOverlapSchema.prefault({}),
    builtInThread: BuiltInThreadSchema.prefault({}),
  })
  .superRefine((config, ctx) => {
    if (config.stages && !config.llm) {
      ctx.addIssue({
        code: "custom",
        path: ["stages"],
        message: "per-stage models need `llm`, the default model that the other stages use",
      });
    }
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
export type RerankConfig = z.infer<typeof RerankSchema>;
export type VectorIndexConfig = z.infer<typeof VectorIndexSchema>;
export type SqliteReadCacheConfig = z.infer<typeof SqliteReadCacheSchema>;
export type SqliteSearchConfig = z.infer<typeof SqliteSearchSchema>;
export type ExtractiveAnswerConfig = z.infer<typeof ExtractiveAnswerSchema>;
export type FusionConfig = z.infer<typeof FusionSchema>;
export type BuiltInThreadConfig = z.infer<typeof BuiltInThreadSchema>;

export type Env = Record<string, string | undefined>;

/** An integer environment variable, or undefined when unset; anything else is a ConfigError naming it. */
export function intFromEnv(env: Env, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value))
    throw new ConfigError(`${name} must be an integer, got ${JSON.stringify(raw)}`);
  return value;
}

/**
 * Reads the KGRAG_* variables (OPENAI_API_KEY and OPENAI_BASE_URL as fallbacks) over the config
 * file, if any. No LLM model set means the offline built-ins are used.
 */
export function configFromEnv(env: Env = process.env, overrides: KgragConfigInput = {}): KgragConfig {
  return loadConfig(env, overrides).config;
}

/** The effective configuration, the file it read (if any) and where each value came from. */
export interface LoadedConfig {
  config: KgragConfig;
  file: string | null;
  /** Dotted path → "default", "file PATH", "env NAME" or "option". */
  sources: Record<string, string>;
}

/**
 * Defaults, then the config file (the workspace's, the current folder's or --config), then
 * environment variables, then `overrides` (library options and CLI flags), each over the last.
 */
export function loadConfig(env: Env = process.env, overrides: KgragConfigInput = {}): LoadedConfig {
  checkChoice(env, "KGRAG_STORAGE", STORAGE_KINDS);
  checkChoice(env, "KGRAG_ENTITY_RESOLUTION", ["auto", "on", "off"]);
  checkChoice(env, "KGRAG_VECTOR_INDEX", VectorIndexSchema.shape.kind.unwrap().options);
  // A config file's object passed as options may keep its `$schema`.
  const given = withoutEditorSchema(stripUndefinedDeep(overrides));
  refuseUnknownKeys(given, OPTIONS_LAYER);
  const file = locateConfigFile(env, (given.workspace as string | undefined) ?? env.KGRAG_WORKSPACE);
  const fromFile = file ? filePathsResolved(readConfigFile(file), file) : {};
  if (file) refuseUnknownKeys(fromFile, file);
  const fromEnv = envLayer(env);
  dropUnrequestedSections(fromEnv.values, [fromFile, given]);
  const merged = deepMerge(deepMerge(fromFile, fromEnv.values), given);
  const derived = keysFromVariables(merged, env);
  // Parsed once or twice per process: zod's compiled fast path costs more to build (about 15 ms
  // for this schema) than it saves.
  const parsed = ConfigSchema.safeParse(merged, { jitless: true });
  if (!parsed.success) throw new ConfigError(invalidConfigMessage(parsed.error, file));
  const origins = { ...fromEnv.origins, ...derived };
  return { config: parsed.data, file, sources: sourcesOf(parsed.data, { file, fromFile, origins, given }) };
}

/** Folders named in a config file are relative to the file, wherever kgrag is started from. */
function filePathsResolved(values: Plain, file: string): Plain {
  const resolved = { ...values };
  for (const key of ["workspace", "prompts"]) {
    const value = resolved[key];
    if (typeof value === "string" && value) resolved[key] = resolve(dirname(file), value);
  }
  return resolved;
}

type EnvValues = { values: Plain; origins: Record<string, string> };

/** The settings the environment gives, each with the variable it came from. */
function envLayer(env: Env): EnvValues {
  const layer: EnvValues = { values: {}, origins: {} };
  const put = (path: string, name: string, value: unknown) => {
    if (value === undefined || value === "") return;
    setPath(layer.values, path, value);
    layer.origins[path] = `env ${name}`;
  };
  const first = (...names: string[]) => names.find((name) => env[name]);
  put("workspace", "KGRAG_WORKSPACE", env.KGRAG_WORKSPACE);
  put("storage", "KGRAG_STORAGE", env.KGRAG_STORAGE);
  put("entityResolution", "KGRAG_ENTITY_RESOLUTION", env.KGRAG_ENTITY_RESOLUTION);
  put("vectorIndex.kind", "KGRAG_VECTOR_INDEX", env.KGRAG_VECTOR_INDEX);
  for (const [key, name] of [
    ["uri", "NEO4J_URI"],
    ["username", "NEO4J_USERNAME"],
    ["password", "NEO4J_PASSWORD"],
    ["database", "NEO4J_DATABASE"],
  ] as const)
    put(`neo4j.${key}`, name, env[name]);
  put("llm.model", "KGRAG_LLM_MODEL", env.KGRAG_LLM_MODEL);
  put("llm.baseURL", "KGRAG_LLM_BASE_URL", env.KGRAG_LLM_BASE_URL);
  put("llm.apiKey", "KGRAG_LLM_API_KEY", env.KGRAG_LLM_API_KEY);
  put("llm.concurrency", "KGRAG_LLM_CONCURRENCY", intFromEnv(env, "KGRAG_LLM_CONCURRENCY"));
  put("llm.timeoutMs", "KGRAG_LLM_TIMEOUT_MS", intFromEnv(env, "KGRAG_LLM_TIMEOUT_MS"));
  put("embedding.model", "KGRAG_EMBEDDING_MODEL", env.KGRAG_EMBEDDING_MODEL);
  const embeddingBase = first("KGRAG_EMBEDDING_BASE_URL", "KGRAG_LLM_BASE_URL");
  put("embedding.baseURL", embeddingBase ?? "", embeddingBase && env[embeddingBase]);
  const embeddingKey = first("KGRAG_EMBEDDING_API_KEY", "KGRAG_LLM_API_KEY");
  put("embedding.apiKey", embeddingKey ?? "", embeddingKey && env[embeddingKey]);
  put("embedding.dimension", "KGRAG_EMBEDDING_DIM", intFromEnv(env, "KGRAG_EMBEDDING_DIM"));
  put("embedding.timeoutMs", "KGRAG_LLM_TIMEOUT_MS", intFromEnv(env, "KGRAG_LLM_TIMEOUT_MS"));
  put("rerank.model", "KGRAG_RERANK_MODEL", env.KGRAG_RERANK_MODEL);
  put("rerank.baseURL", "KGRAG_RERANK_BASE_URL", env.KGRAG_RERANK_BASE_URL);
  put("rerank.apiKey", "KGRAG_RERANK_API_KEY", env.KGRAG_RERANK_API_KEY);
  put("rerank.topN", "KGRAG_RERANK_TOP_N", intFromEnv(env, "KGRAG_RERANK_TOP_N"));
  return layer;
}

/**
 * A section the environment only half gives (an API key without a model, a Neo4j password
 * without an address) stays off unless the file or the options ask for that section.
 */
function dropUnrequestedSections(values: Plain, asking: Plain[]): void {
  const needed: Array<[string, string]> = [
    ["llm", "model"],
    ["embedding", "model"],
    ["neo4j", "uri"],
    ["rerank", "model"],
  ];
  for (const [section, key] of needed) {
    const own = values[section];
    if (isPlainObject(own) && own[key] === undefined && !asking.some((layer) => layer[section])) {
      delete values[section];
    }
  }
}

/**
 * Fills each model's `apiKey` from the variable its `apiKeyEnv` names, then from OPENAI_API_KEY
 * (and its address from OPENAI_BASE_URL), returning where each came from.
 */
function keysFromVariables(merged: Plain, env: Env): Record<string, string> {
  const origins: Record<string, string> = {};
  const stages = isPlainObject(merged.stages) ? merged.stages : {};
  const sections: Array<[string, unknown]> = [
    ["llm", merged.llm],
    ["embedding", merged.embedding],
    ...Object.entries(stages).map(([name, stage]): [string, unknown] => [`stages.${name}`, stage]),
  ];
  for (const [path, section] of sections) {
    if (!isPlainObject(section) || section.apiKey !== undefined) continue;
    const name = typeof section.apiKeyEnv === "string" ? section.apiKeyEnv : undefined;
    const fallback = path.startsWith("stages.") ? undefined : "OPENAI_API_KEY";
    const source = name ?? fallback;
    if (source && env[source]) {
      section.apiKey = env[source];
      origins[`${path}.apiKey`] = `env ${source}`;
    }
  }
  for (const path of ["llm", "embedding"]) {
    const section = merged[path];
    if (isPlainObject(section) && section.baseURL === undefined && env.OPENAI_BASE_URL) {
      section.baseURL = env.OPENAI_BASE_URL;
      origins[`${path}.baseURL`] = "env OPENAI_BASE_URL";
    }
  }
  return origins;
}

/** Where the options layer of loadConfig comes from, as its errors name it. */
const OPTIONS_LAYER = "the options (createKgrag's config)";

/**
 * zod drops keys it does not know, so a misspelt one (`workspce`) would be ignored without a word
 * and its default used: refused here, each named with the key meant when one is close.
 */
function refuseUnknownKeys(values: Plain, where: string): void {
  const unknown = unknownKeys(ConfigSchema, values);
  if (unknown.length === 0) return;
  const lines = unknown.map((path) => {
    const known = knownKeysAt(ConfigSchema, path);
    const meant = closestName(path.split(".").at(-1) ?? path, known);
    const guess = meant ? `did you mean "${meant}"? ` : "";
    return `  ${path}: unknown key (${guess}known here: ${known.join(", ")})`;
  });
  throw new ConfigError(`Invalid kgrag configuration in ${where}:\n${lines.join("\n")}`);
}

/** One line per problem, each naming its key: "query.topK: Invalid input: expected number, received string". */
function invalidConfigMessage(error: z.ZodError, file: string | null): string {
  const lines = error.issues.map((issue) => `  ${issue.path.join(".") || "(top level)"}: ${issue.message}`);
  const where = file ? ` (file ${file}, then environment variables and options)` : "";
  return `Invalid kgrag configuration${where}:\n${lines.join("\n")}`;
}

interface SourceLayers {
  file: string | null;
  fromFile: Plain;
  origins: Record<string, string>;
  given: Plain;
}

function sourcesOf(config: KgragConfig, layers: SourceLayers): Record<string, string> {
  const sources: Record<string, string> = {};
  for (const [path] of leafPaths(config as Plain)) {
    if (hasPath(layers.given, path)) sources[path] = "option";
    else if (layers.origins[path]) sources[path] = layers.origins[path];
    else if (layers.file && hasPath(layers.fromFile, path)) sources[path] = `file ${layers.file}`;
    else sources[path] = "default";
  }
  return sources;
}

/** Names the variable and its allowed values; zod would only say "Invalid option ... at storage". */
function checkChoice(env: Env, name: string, allowed: readonly string[]): void {
  const raw = env[name];
  if (raw === undefined || allowed.includes(raw)) return;
  throw new ConfigError(`${name} must be one of ${allowed.join(", ")}; got ${JSON.stringify(raw)}.`);
}

function stripUndefinedDeep(value: object): Plain {
  return deepMerge({}, value as Plain);
}
