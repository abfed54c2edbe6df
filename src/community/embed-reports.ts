import type { KgragServices } from "../services.js";
import type { CommunityRecord } from "../types.js";
import { hashText } from "../util/hash.js";

export const EMBED_BATCH = 32;

/**
 * Embeds report markdown into the "communities" vector namespace (for offline global answers and
 * report ranking). Reports whose text hash matches the stored vector are skipped.
 */
export async function embedCommunityReports(
  services: KgragServices,
  communities: readonly CommunityRecord[],
): Promise<number> {
  const { store, embedder } = services;
  const stored = await store.vectorHashes("communities");
  const todo = communities.flatMap((c) => {
    if (!c.report) return [];
    const textHash = hashText(c.report.markdown);
    return stored.get(c.id) === textHash ? [] : [{ id: c.id, text: c.report.markdown, textHash }];
  });
  for (let i = 0; i < todo.length; i += EMBED_BATCH) {
    const batch = todo.slice(i, i + EMBED_BATCH);
    const vectors = await embedder.embed(batch.map((item) => item.text));
    await store.upsertVectors(
      "communities",
      batch.map((item, j) => ({ id: item.id, vector: vectors[j] as number[], textHash: item.textHash })),
    );
  }
  return todo.length;
}
