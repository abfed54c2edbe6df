/** The model's vectors do not have the size the configuration or the first answer fixed. */
export class EmbeddingDimensionError extends Error {
  constructor(
    readonly model: string,
    readonly expected: number,
    readonly got: number,
  ) {
    super(
      `Embedding model ${model} returned vectors of dimension ${got}, expected ${expected}. ` +
        "Set the embedding dimension (KGRAG_EMBEDDING_DIM) to the model's real one, or use the " +
        "model this workspace was built with; nothing from this request was stored.",
    );
    this.name = "EmbeddingDimensionError";
  }
}
