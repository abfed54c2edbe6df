import type { KgragConfig } from "../config.js";
import type { GraphStore } from "../storage/graph-store.js";

/** Meta key of the chunking settings the workspace's documents were cut with, in the order used. */
const CHUNKINGS_META_KEY = "chunkings";

/** "size 1200, overlap 100, o200k_base": one chunking setting as it is recorded and reported. */
export function chunkingLabel(chunking: KgragConfig["chunking"]): string {
  return `size ${chunking.size}, overlap ${chunking.overlap}, ${chunking.encoding}`;
}

/** The chunking settings recorded so far (none in a workspace made before they were recorded). */
export async function recordedChunkings(store: Pick<GraphStore, "getMeta">): Promise<string[]> {
  const recorded = await store.getMeta(CHUNKINGS_META_KEY);
  return recorded ? (JSON.parse(recorded) as string[]) : [];
}

/** Adds the settings that have just cut documents to the recorded ones. */
export async function recordChunking(store: GraphStore, label: string): Promise<void> {
  const recorded = await recordedChunkings(store);
  if (recorded.includes(label)) return;
  await store.setMeta(CHUNKINGS_META_KEY, JSON.stringify([...recorded, label]));
}
