import OpenAI from "openai";
import pLimit, { type LimitFunction } from "p-limit";
import type { KgragConfig } from "../config.js";
import { withDeadline } from "../llm/deadline.js";
import { STAGE_HEADER } from "../llm/openai-chat.js";
import { RateLimiter } from "../llm/rate-limiter.js";
import { type RetryTuning, withRetry } from "../llm/retry.js";
import { counted } from "../util/counted.js";
import { countTokens } from "../util/tokens.js";
import { EmbeddingDimensionError } from "./dimension-error.js";
import type { Embedder } from "./embedder.js";

export type EmbeddingConfig = NonNullable<KgragConfig["embedding"]>;

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
  ) {
    this.model = config.model;
    this.limit = pLimit(config.concurrency);
    this.limiter = new RateLimiter(config);
    this.client = OpenAIEmbedder.clientFor(config);
  }

  /**
   * Uses the configured dimension, else `knownDimension` (what the workspace recorded for this
   * model), or asks the endpoint once when neither is known. Only a configured one is sent as the
   * request's `dimensions` (a model that cannot shorten its vectors refuses it).
   */
  static async create(
    config: EmbeddingConfig,
    tuning: RetryTuning = {},
    knownDimension?: number,
  ): Promise<OpenAIEmbedder> {
    if (config.dimension !== undefined) return new OpenAIEmbedder(config, config.dimension, tuning);
    if (knownDimension !== undefined) return new OpenAIEmbedder(config, knownDimension, tuning);
    const probe = new OpenAIEmbedder(config, 0, tuning);
    const [vector] = await probe.request(["dimension probe"]);
    if (!vector?.length) throw new Error(`Embedding model ${config.model} returned an empty vector`);
    return new OpenAIEmbedder(config, vector.length, tuning);
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

  private request(batch: string[]): Promise<number[][]> {
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
    return withRetry(send, { ...this.tuning, maxRetries: this.config.maxRetries, label });
  }

  private sendBatch(batch: string[], label: string): Promise<number[][]> {
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
      return this.inInputOrder(response.data, batch.length);
    });
  }

  private inInputOrder(data: OpenAI.Embeddings.Embedding[], expected: number): number[][] {
    if (data.length !== expected) {
      throw new Error(`Embedding model ${this.model} returned ${data.length} vectors for ${expected} texts`);
    }
    return [...data].sort((a, b) => a.index - b.index).map((item) => item.embedding);
  }
}
