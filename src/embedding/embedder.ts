/** Turns texts into vectors. Implementations: OpenAI-compatible endpoint, LangChain embeddings, offline hashing. */
export interface Embedder {
  /** Recorded in the workspace; opening it with another model is an error. */
  readonly model: string;
  readonly dimension: number;
  /**
   * "hashing" marks the offline built-in so nobody mistakes it for a semantic model; "custom" is
   * for an embedder of the caller's own.
   */
  readonly kind: "openai" | "langchain" | "hashing" | "test" | "custom";
  embed(texts: string[]): Promise<number[][]>;
  /** Requests one embed call of this many texts sends, for usage counts (one when left out). */
  requestsFor?(texts: number): number;
}
