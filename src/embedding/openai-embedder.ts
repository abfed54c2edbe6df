import OpenAI from "openai";
import pLimit, { type LimitFunction } from "p-limit";
import type { KgragConfig } from "../config.js";
import { withDeadline } from "../llm/deadline.js";
import { STAGE_HEADER } from "../llm/openai-chat.js";
import { RateLimiter } from "../llm/rate-limiter.js";
import { type RetryTuning, withRetry } from "../llm/retry.js";
import type { EmbeddingUsageSink } from "../llm/usage.js";
import { counted } from "../util/counted.js";
import { countTokens } from "../util/tokens.js";
import { EmbeddingDimensionError } from "./dimension-error.js";
import type { Embedder } from "./embedder.js";

/** The `embedding` settings as kgrag's client needs them: with the model to ask. */
export type EmbeddingConfig = NonNullable<KgragConfig["embedding"]> & { model: string };

/**
 * The request's input tokens as the endpoint counted them; endpoints that send no usage (some local
 * servers) get each text counted as the dry run counts it.
 */
function inputTokens(response: { usage?: { prompt_tokens?: number } }, batch: string[]): number {
  return response.usage?.prompt_tokens ?? batch.reduce((sum, text) => sum + countTokens(text), 0);
}

function chunked<T>(items: T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches;
}

/**
 * Embeddings over any OpenAI-compatible endpoint, in batches sent a few at a time, with the same
 * retry rules as chat. Every vector is checked against one dimension so a misconfigured model
 * fails loudly instead of mixing vector sizes in the workspace.
 */
export class OpenAIEmbedder implements Embedder {
  readonly kind = "openai" as const;
  readonly model: string;
  private readonly client: OpenAI;
  private readonly limit: LimitFunction;
  /** Requests and tokens per minute when configured, and the server's 429 pauses for every batch. */
  private readonly limiter: RateLimiter;

  private constructor(
    private readonly config: EmbeddingConfig,
    readonly dimension: number,
    private readonly tuning: RetryTuning,
    private readonly usage?: EmbeddingUsageSink,
  ) {
    this.model = config.model;
    this.limit = pLimit(config.concurrency);
    this.limiter = new RateLimiter(config);
    this.client = OpenAIEmbedder.clientFor(config);
  }

  /**
   * Uses the configured dimension, else `knownDimension` (what the workspace recorded for this
   * model), or asks the endpoint once when neither is known. Only a configured one is sent as the
   * request's `dimensions` (a model that cannot shorten its vectors refuses it). Each request
   * answered is reported to `usage` with its input tokens.
   */
  static async create(
    config: EmbeddingConfig,
    tuning: RetryTuning = {},
    usage?: EmbeddingUsageSink,
    knownDimension?: number,
  ): Promise<OpenAIEmbedder> {
    if (config.dimension !== undefined) return new OpenAIEmbedder(config, config.dimension, tuning, usage);
    if (knownDimension !== undefined) return new OpenAIEmbedder(config, knownDimension, tuning, usage);
    const probe = new OpenAIEmbedder(config, 0, tuning, usage);
    const [vector] = await probe.request(["dimension probe"]);
    if (!vector?.length) throw new Error(`Embedding model ${config.model} returned an empty vector`);
    return new OpenAIEmbedder(config, vector.length, tuning, usage);
  }

  private static clientFor(config: EmbeddingConfig): OpenAI {
    return new OpenAI({
      baseURL: config.baseURL,
      // Local servers (Ollama, vLLM) accept any key; the client library insists on one.
      apiKey: config.apiKey ?? "not-needed",
      timeout: config.timeoutMs,
      maxRetries: 0,
    });
  }

  requestsFor(texts: number): number {
    return Math.ceil(texts / this.config.batchSize);
  }

  async embed(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    const batches = chunked(texts, this.config.batchSize);
    const results = await this.limit.map(batches, (batch) => this.embedBatch(batch));
    return results.flat();
  }

  private async embedBatch(batch: string[]): Promise<number[][]> {
    const vectors = await this.request(batch);
    for (const vector of vectors) {
      if (vector.length !== this.dimension) {
        throw new EmbeddingDimensionError(this.model, this.dimension, vector.length);
      }
    }
    return vectors;
  }

  private async request(batch: string[]): Promise<number[][]> {
    const label = `embedding request (model ${this.model}, ${counted(batch.length, "text")})`;
    const send = async () => {
      await this.limiter.acquire(this.limiter.countsTokens ? countTokens(batch.join("\n")) : 0);
      try {
        return await this.sendBatch(batch, label);
      } catch (error) {
        this.limiter.observeFailure(error);
        throw error;
      }
    };
    const answered = await withRetry(send, { ...this.tuning, maxRetries: this.config.maxRetries, label });
    this.usage?.recordEmbedding(1, answered.tokens);
    return answered.vectors;
  }

  private sendBatch(batch: string[], label: string): Promise<{ vectors: number[][]; tokens: number }> {
    return withDeadline(label, this.config.timeoutMs, async (signal) => {
      const response = await this.client.embeddings.create(
        {
          model: this.model,
          input: batch,
          // Local servers often lack base64 support, which the client would ask for by default.
          encoding_format: "float",
          ...(this.config.dimension !== undefined ? { dimensions: this.config.dimension } : {}),
        },
        { headers: { [STAGE_HEADER]: "embed" }, signal },
      );
      return {
        vectors: this.inInputOrder(response.data, batch.length),
        tokens: inputTokens(response, batch),
      };
    });
  }

  private inInputOrder(data: OpenAI.Embeddings.Embedding[], expected: number): number[][] {
    if (data.length !== expected) {
      // Some local servers embed only the first text of a batch: one text per request suits them.
      const hint =
        expected > 1 ? "; if the server embeds one text per request, set embedding.batchSize to 1" : "";
      throw new Error(
        `Embedding model ${this.model} returned ${data.length} vectors for ${expected} texts${hint}`,
      );
    }
    return [...data].sort((a, b) => a.index - b.index).map((item) => item.embedding);
  }
}
