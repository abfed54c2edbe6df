import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { EmbeddingUsageSink } from "../llm/usage.js";
import { countTokens } from "../util/tokens.js";
import { EmbeddingDimensionError } from "./dimension-error.js";
import type { Embedder } from "./embedder.js";

export interface LangChainEmbedderOptions {
  /** Recorded in the workspace; defaults to the object's `model`/`modelName` or its class name. */
  model?: string;
  /** Skips the probe call when known. */
  dimension?: number;
}

function nameOf(embeddings: EmbeddingsInterface): string {
  for (const key of ["model", "modelName"]) {
    const value: unknown = Reflect.get(embeddings, key);
    if (typeof value === "string" && value) return value;
  }
  return embeddings.constructor.name;
}

/** Texts per request the object sends (LangChain's OpenAIEmbeddings: `batchSize`); all at once without one. */
function batchSizeOf(embeddings: EmbeddingsInterface): number {
  const value: unknown = Reflect.get(embeddings, "batchSize");
  return typeof value === "number" && value >= 1 ? value : Number.POSITIVE_INFINITY;
}

/**
 * Lets any LangChain embeddings object (OpenAIEmbeddings, OllamaEmbeddings...) serve as a kgrag
 * Embedder. Batching and retries are the LangChain object's own (its batchSize and caller). LangChain
 * reports no usage: each call's requests (by its batchSize) and tokens (counted as the dry run
 * counts them) go to `usage`.
 */
export class LangChainEmbedder implements Embedder {
  readonly kind = "langchain" as const;

  private constructor(
    private readonly embeddings: EmbeddingsInterface,
    readonly model: string,
    readonly dimension: number,
    private readonly usage?: EmbeddingUsageSink,
  ) {}

  /** The name recorded in the workspace when none is given: the object's `model`/`modelName`, or its class name. */
  static modelNameOf(embeddings: EmbeddingsInterface): string {
    return nameOf(embeddings);
  }

  /** Asks for one vector to learn the dimension unless it is given. */
  static async create(
    embeddings: EmbeddingsInterface,
    options: LangChainEmbedderOptions = {},
    usage?: EmbeddingUsageSink,
  ): Promise<LangChainEmbedder> {
    const model = options.model ?? nameOf(embeddings);
    const dimension = options.dimension ?? (await embeddings.embedQuery("dimension probe")).length;
    if (dimension < 1) throw new Error(`Embeddings ${model} returned an empty vector`);
    return new LangChainEmbedder(embeddings, model, dimension, usage);
  }

  requestsFor(texts: number): number {
    return Math.ceil(texts / Math.min(texts, batchSizeOf(this.embeddings)));
  }

  async embed(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    const vectors = await this.embeddings.embedDocuments(texts);
    this.usage?.recordEmbedding(
      this.requestsFor(texts.length),
      texts.reduce((sum, text) => sum + countTokens(text), 0),
    );
    if (vectors.length !== texts.length) {
      throw new Error(
        `Embeddings ${this.model} returned ${vectors.length} vectors for ${texts.length} texts`,
      );
    }
    for (const vector of vectors) {
      if (vector.length !== this.dimension) {
        throw new EmbeddingDimensionError(this.model, this.dimension, vector.length);
      }
    }
    return vectors;
  }
}
