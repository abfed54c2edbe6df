import type { EmbeddingsInterface } from "@langchain/core/embeddings";
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

/**
 * Lets any LangChain embeddings object (OpenAIEmbeddings, OllamaEmbeddings...) serve as a kgrag
 * Embedder. Batching and retries are the LangChain object's own (its batchSize and caller).
 */
export class LangChainEmbedder implements Embedder {
  readonly kind = "langchain" as const;

  private constructor(
    private readonly embeddings: EmbeddingsInterface,
    readonly model: string,
    readonly dimension: number,
  ) {}

  /** Asks for one vector to learn the dimension unless it is given. */
  static async create(
    embeddings: EmbeddingsInterface,
    options: LangChainEmbedderOptions = {},
  ): Promise<LangChainEmbedder> {
    const model = options.model ?? nameOf(embeddings);
    const dimension = options.dimension ?? (await embeddings.embedQuery("dimension probe")).length;
    if (dimension < 1) throw new Error(`Embeddings ${model} returned an empty vector`);
    return new LangChainEmbedder(embeddings, model, dimension);
  }

  async embed(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    const vectors = await this.embeddings.embedDocuments(texts);
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
