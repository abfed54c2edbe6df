import { z } from "zod";
import type { RerankConfig } from "../config.js";

/** A relevance score for the document at `index` of the list given to the reranker. */
export interface RerankScore {
  index: number;
  score: number;
}

/** Anything that scores passages against a query: the HTTP endpoint, or a caller's own. */
export interface Reranker {
  readonly model: string;
  rerank(query: string, documents: string[]): Promise<RerankScore[]>;
}

/** The answer of a Jina / Cohere style /rerank endpoint (extra fields are ignored). */
const RerankResponseSchema = z.object({
  results: z.array(z.object({ index: z.number().int().min(0), relevance_score: z.number() })),
});

/**
 * A `/rerank` endpoint as Jina, Cohere, Voyage, vLLM and text-embeddings-inference serve it:
 * POST {model, query, documents, top_n} to `${baseURL}/rerank`, results by index with a relevance score.
 */
export class HttpReranker implements Reranker {
  constructor(
    private readonly config: RerankConfig,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  get model(): string {
    return this.config.model;
  }

  async rerank(query: string, documents: string[]): Promise<RerankScore[]> {
    const url = `${this.config.baseURL.replace(/\/+$/, "")}/rerank`;
    const response = await this.fetchImpl(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: this.config.model, query, documents, top_n: documents.length }),
      signal: AbortSignal.timeout(this.config.timeoutMs),
    });
    if (!response.ok) {
      throw new Error(
        `rerank endpoint ${url} answered HTTP ${response.status}: ${(await response.text()).slice(0, 200)}`,
      );
    }
    const parsed = RerankResponseSchema.safeParse(await response.json());
    if (!parsed.success)
      throw new Error(`rerank endpoint ${url} answered an unexpected shape: ${parsed.error.message}`);
    return parsed.data.results
      .filter((r) => r.index < documents.length)
      .map((r) => ({ index: r.index, score: r.relevance_score }));
  }
}
