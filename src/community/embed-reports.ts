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
  const embeddings = await ReportEmbeddings.open(services, writeSize);
  return embeddings.finish(communities);
}

/**
 * Report vectors embedded while later reports are still being written: a request goes out as soon
 * as `EMBED_BATCH` finished reports wait for one (the size every request had when all were embedded
 * after the last report), and `finish` sends the rest, so no request is added. Answered vectors
 * are written in the order their requests went out, `writeSize` per transaction as they arrive,
 * so at most a write's worth waits in memory rather than every report's vector (about 50 MB for
 * 11,600 reports). A vector written before its report is saved is harmless: it carries the
 * report text's hash, and a report written again alike keeps it.
 */
export class ReportEmbeddings {
  private readonly waiting: ReportText[] = [];
  private readonly taken = new Set<string>();
  /** Answered vectors not yet written, in request order. */
  private unwritten: VectorItem[] = [];
  /** Every request sent, each written after the one before (rejected with the first failure). */
  private written: Promise<void> = Promise.resolve();
  private sentCount = 0;
  private writtenCount = 0;
  /** Set while `finish` reports the step, so later writes advance it. */
  private reporting = false;

  private constructor(
    private readonly services: KgragServices,
    /** The text hash of every stored report vector, read when the step began. */
    private readonly stored: ReadonlyMap<string, string>,
    private readonly writeSize: number,
  ) {}

  /** `writeSize`: vectors written per transaction. */
  static async open(services: KgragServices, writeSize: number): Promise<ReportEmbeddings> {
    return new ReportEmbeddings(services, await services.store.vectorHashes("communities"), writeSize);
  }

  /** A report just written: queued for its vector, and a full request sent. */
  add(community: CommunityRecord): void {
    this.queue(community);
    if (this.waiting.length >= EMBED_BATCH) this.send(this.waiting.splice(0, EMBED_BATCH));
  }

  /**
   * Embeds every report of `communities` still without a current vector (those added included),
   * writes the vectors not written yet, and returns how many were embedded.
   */
  async finish(communities: readonly CommunityRecord[]): Promise<number> {
    const { progress } = this.services;
    for (const community of communities) this.queue(community);
    for (const batch of slices(this.waiting.splice(0), EMBED_BATCH)) this.send(batch);
    progress.start(STEP, this.sentCount);
    if (this.writtenCount > 0) progress.advance(STEP, this.writtenCount);
    this.reporting = true;
    await this.written;
    await this.write(this.unwritten.splice(0));
    progress.finish(STEP);
    return this.sentCount;
  }

  /** Waits for every request sent and every write begun, so none outlives a step that failed or stopped. */
  async settled(): Promise<void> {
    await this.written.catch(() => {});
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
    // Awaited through the chain below; a failure before then must not count as unhandled.
    vectors.catch(() => {});
    this.sentCount += texts.length;
    this.written = this.written.then(async () => {
      const embedded = await vectors;
      for (const [j, t] of texts.entries()) {
        this.unwritten.push({ id: t.id, vector: embedded[j] as number[], textHash: t.textHash });
      }
      while (this.unwritten.length >= this.writeSize)
        await this.write(this.unwritten.splice(0, this.writeSize));
    });
    // Seen by finish or settled; a failure must not count as unhandled meanwhile.
    this.written.catch(() => {});
  }

  private async write(items: VectorItem[]): Promise<void> {
    if (items.length === 0) return;
    await this.services.store.upsertVectors("communities", items);
    this.writtenCount += items.length;
    if (this.reporting) this.services.progress.advance(STEP, items.length);
  }
}
