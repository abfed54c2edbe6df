import type { KgragServices } from "../services.js";
import type { CommunityRecord, VectorItem } from "../types.js";
import { hashText } from "../util/hash.js";
import { slices } from "../util/slices.js";

export const EMBED_BATCH = 32;

/** The progress step, named like the other embedding steps ("embed entities"). */
const STEP = "embed communities";

/**
 * Embeds report markdown into the "communities" vector namespace (for offline global answers and
 * report ranking). Reports whose text hash matches the stored vector are skipped.
 */
export async function embedCommunityReports(
  services: KgragServices,
  communities: readonly CommunityRecord[],
  /** Vectors written per transaction (a commit per embedding batch is slow on Neo4j). */
  writeSize = EMBED_BATCH,
): Promise<number> {
  const { store, embedder, progress } = services;
  const stored = await store.vectorHashes("communities");
  const todo = communities.flatMap((c) => {
    if (!c.report) return [];
    const textHash = hashText(c.report.markdown);
    return stored.get(c.id) === textHash ? [] : [{ id: c.id, text: c.report.markdown, textHash }];
  });
  progress.start(STEP, todo.length);
  for (let start = 0; start < todo.length; start += writeSize) {
    const items: VectorItem[] = [];
    for (const batch of slices(todo.slice(start, start + writeSize), EMBED_BATCH)) {
      const vectors = await embedder.embed(batch.map((item) => item.text));
      items.push(
        ...batch.map((item, j) => ({ id: item.id, vector: vectors[j] as number[], textHash: item.textHash })),
      );
    }
    await store.upsertVectors("communities", items);
    progress.advance(STEP, items.length);
  }
  progress.finish(STEP);
  return todo.length;
}
