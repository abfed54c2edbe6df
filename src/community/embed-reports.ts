import type { KgragServices } from "../services.js";
import type { CommunityRecord, VectorItem } from "../types.js";
import { hashText } from "../util/hash.js";
import { slices } from "../util/slices.js";

export const EMBED_BATCH = 32;

/** The progress step, named like the other embedding steps ("embed entities"). */
const STEP = "embed communities";

interface ReportText {
  id: string;
  text: string;
  textHash: string;
}

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
  const embeddings = await ReportEmbeddings.open(services);
  return embeddings.finish(communities, writeSize);
}

/**
 * Report vectors embedded while later reports are still being written: a request goes out as soon
 * as `EMBED_BATCH` finished reports wait for one (the size every request had when all were embedded
 * after the last report), and `finish` sends the rest, so no request is added. The vectors are
 * written at the end, after the reports are saved, as before.
 */
export class ReportEmbeddings {
  private readonly waiting: ReportText[] = [];
  private readonly sent: { texts: ReportText[]; vectors: Promise<number[][]> }[] = [];
  private readonly taken = new Set<string>();

  private constructor(
    private readonly services: KgragServices,
    /** The text hash of every stored report vector, read when the step began. */
    private readonly stored: ReadonlyMap<string, string>,
  ) {}

  static async open(services: KgragServices): Promise<ReportEmbeddings> {
    return new ReportEmbeddings(services, await services.store.vectorHashes("communities"));
  }

  /** A report just written: queued for its vector, and a full request sent. */
  add(community: CommunityRecord): void {
    this.queue(community);
    if (this.waiting.length >= EMBED_BATCH) this.send(this.waiting.splice(0, EMBED_BATCH));
  }

  /**
   * Embeds every report of `communities` still without a current vector (those added included),
   * writes the vectors `writeSize` per transaction, and returns how many were embedded.
   */
  async finish(communities: readonly CommunityRecord[], writeSize: number): Promise<number> {
    const { store, progress } = this.services;
    for (const community of communities) this.queue(community);
    for (const batch of slices(this.waiting.splice(0), EMBED_BATCH)) this.send(batch);
    const total = this.sent.reduce((sum, s) => sum + s.texts.length, 0);
    progress.start(STEP, total);
    const items: VectorItem[] = [];
    for (const { texts, vectors } of this.sent) {
      const embedded = await vectors;
      items.push(
        ...texts.map((t, j) => ({ id: t.id, vector: embedded[j] as number[], textHash: t.textHash })),
      );
    }
    for (const batch of slices(items, writeSize)) {
      await store.upsertVectors("communities", batch);
      progress.advance(STEP, batch.length);
    }
    progress.finish(STEP);
    return total;
  }

  /** Waits for every request sent, so none outlives a step that failed or stopped. */
  async settled(): Promise<void> {
    await Promise.allSettled(this.sent.map((s) => s.vectors));
  }

  private queue(community: CommunityRecord): void {
    if (!community.report || this.taken.has(community.id)) return;
    const textHash = hashText(community.report.markdown);
    if (this.stored.get(community.id) === textHash) return;
    this.taken.add(community.id);
    this.waiting.push({ id: community.id, text: community.report.markdown, textHash });
  }

  private send(texts: ReportText[]): void {
    const vectors = this.services.embedder.embed(texts.map((t) => t.text));
    // Awaited by finish; a failure before then must not count as unhandled.
    vectors.catch(() => {});
    this.sent.push({ texts, vectors });
  }
}
