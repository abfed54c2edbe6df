import pLimit from "p-limit";
import type { Extractor } from "../extraction/extractor.js";
import { mentionsFromExtraction } from "../merge/fold.js";
import { type ChunkMerge, planChunkMerges } from "../merge/plan.js";
import { loadResolution } from "../resolve/apply-rules.js";
import type { KgragServices } from "../services.js";
import type { ChunkRecord } from "../types.js";
import { StageClock } from "./stage-timings.js";
import { stopRequested } from "./stop-point.js";

/**
 * Chunks merged per transaction. Each batch re-folds and rewrites every entity it touches from all
 * its mentions, so a hub mentioned across the corpus costs (batches x its mentions). Cutting a run
 * into a fixed number of batches keeps that linear in the corpus rather than quadratic, within
 * bounds on the transaction size. A crash loses at most one batch of merges, never half a chunk.
 */
const MIN_MERGE_BATCH = 256;
const MAX_MERGE_BATCH = 4096;
const MERGE_BATCHES_PER_RUN = 2;

/** Neo4j bounds a transaction's memory, so its batches have their own (configured) cap. */
function mergeBatchSize(services: KgragServices, chunks: number): number {
  const perRun = Math.min(
    MAX_MERGE_BATCH,
    Math.max(MIN_MERGE_BATCH, Math.ceil(chunks / MERGE_BATCHES_PER_RUN)),
  );
  if (services.store.kind !== "neo4j") return perRun;
  return Math.min(perRun, services.config.neo4j?.mergeBatchChunks ?? perRun);
}

/**
 * The chunks of the documents that are not merged yet, in document order, each with its
 * document's title. The per-document reads go together (one round trip each on Neo4j).
 */
async function pendingWork(
  store: KgragServices["store"],
  docIds: string[],
): Promise<{ chunk: ChunkRecord; title: string }[]> {
  const [docs, states] = await Promise.all([
    Promise.all(docIds.map((docId) => store.getDocument(docId))),
    Promise.all(docIds.map((docId) => store.getChunkStates(docId))),
  ]);
  const titles = new Map(docs.flatMap((doc) => (doc ? [[doc.id, doc.title] as const] : [])));
  const pendingIds = states
    .flat()
    .filter((s) => s.status !== "merged" && titles.has(s.docId))
    .map((s) => s.chunkId);
  const chunks = await store.getChunks(pendingIds);
  return chunks.map((chunk) => ({ chunk, title: titles.get(chunk.docId) ?? "" }));
}

export interface ExtractGraphResult {
  merged: number;
  failed: { chunkId: string; docId: string; error: string }[];
}

/**
 * Extracts every pending, partial or failed chunk of the given documents and merges each into the graph.
 * Extraction runs concurrently (the chat model bounds its own concurrency); merges run one batch at
 * a time because each reads and rewrites the entities it touches, beside the extraction of the next. A batch is committed in one
 * transaction, so after a crash its chunks are either merged or pending, never half-merged.
 * When `signal` aborts, no new chunk is started and the ones extracted are merged before returning.
 * `documents` may arrive in batches as they are registered: extraction starts on the first batch,
 * merges wait until the last one is in (the merge batch size follows the run's size). A failed
 * registration ends the batches with its error: no new chunk is started, what was extracted is
 * merged, and the error is thrown.
 */
export async function extractGraph(
  services: KgragServices,
  extractor: Extractor,
  documents: string[] | AsyncIterable<string[]>,
  signal?: AbortSignal,
  clock: StageClock = new StageClock(),
): Promise<ExtractGraphResult> {
  const { store, progress } = services;
  const result: ExtractGraphResult = { merged: 0, failed: [] };
  // Merges recorded earlier (resolution, curation) apply to new mentions as they are merged.
  const planOptions = { ...services.config.merge, resolution: await loadResolution(store) };
  // A list says how large the run is; batches still to come do not (the caller's extractor may know).
  extractor.beginRun?.(Array.isArray(documents) ? { documents: documents.length } : undefined);
  const mergeQueue = pLimit(1);
  // Enough extractions in flight to keep the model busy without holding every chunk's promise at once.
  const inFlight = pLimit(extractor.inFlight ?? Math.max(2, (services.config.llm?.concurrency ?? 1) * 2));
  const ready: ChunkMerge[] = [];
  // Chunks of the run, known once every document is registered; until then nothing merges.
  let total: number | undefined;
  let batchSize = Number.POSITIVE_INFINITY;
  let extractedEarly = 0;
  const advance = () => {
    if (total === undefined) extractedEarly += 1;
    else progress.advance("extract");
  };
  const mergeBatch = (batch: ChunkMerge[]) =>
    mergeQueue(async () => {
      await clock.time("extract.merge", async () => {
        const changes = await planChunkMerges(store, batch, planOptions);
        await store.commitChunkMerges(batch, changes);
      });
      result.merged += batch.length;
    });
  // Full batches merge while extraction goes on (on Neo4j the server does most of a merge's work,
  // so both keep a core busy). Extraction waits only when another full batch is ready behind the
  // merging ones, so at most about two batches are held in memory. A failed merge stops both; it
  // is thrown once the chunks in flight are done. Nothing merges before every document is in.
  const mergeSize = () => (total === undefined ? Number.POSITIVE_INFINITY : batchSize);
  let merging: Promise<void> | undefined;
  let mergeFailure: { error: unknown } | undefined;
  let registrationFailure: { error: unknown } | undefined;
  const mergeFullBatches = async () => {
    while (ready.length >= mergeSize() && !mergeFailure) await mergeBatch(ready.splice(0, batchSize));
  };
  const mergeBehindExtraction = async () => {
    if (ready.length < mergeSize()) return;
    if (!merging) {
      merging = mergeFullBatches()
        .catch((error: unknown) => {
          mergeFailure ??= { error };
        })
        .finally(() => {
          merging = undefined;
        });
    } else if (ready.length >= 2 * batchSize) {
      await merging;
    }
  };

  const extractOne = async ({ chunk, title }: { chunk: ChunkRecord; title: string }) => {
    // Once stopped (or a merge or the registration failed), chunks not started stay pending for the next run.
    if (mergeFailure || registrationFailure || (await stopRequested(signal))) return;
    const outcome = await clock.time("extract.extractor", () =>
      extractor.extract(chunk, signal ? { title, signal } : { title }),
    );
    // A call cut short by the stop is no failure of the chunk: it stays pending too.
    if (!outcome.ok && signal?.aborted) return;
    advance();
    if (outcome.ok) {
      const mentions = mentionsFromExtraction(chunk.id, outcome.extraction);
      const partial = outcome.partial && {
        error: outcome.partial.reason,
        rawOutput: outcome.partial.rawOutput,
      };
      ready.push({ chunkId: chunk.id, mentions, ...(partial ? { partial } : {}) });
      await mergeBehindExtraction();
      return;
    }
    result.failed.push({ chunkId: chunk.id, docId: chunk.docId, error: outcome.error });
    await mergeQueue(() => store.markChunkFailed(chunk.id, outcome.error, outcome.rawOutput));
  };

  const extractions: Promise<void>[] = [];
  try {
    for await (const docIds of Array.isArray(documents) ? [documents] : documents) {
      for (const item of await pendingWork(store, docIds)) {
        const extraction = inFlight(() => extractOne(item));
        // Awaited below, once every batch is in; a failure meanwhile must not count as unhandled.
        extraction.catch(() => {});
        extractions.push(extraction);
      }
    }
  } catch (error) {
    registrationFailure = { error };
  }
  total = extractions.length;
  batchSize = mergeBatchSize(services, total);
  if (total > 0) {
    progress.start("extract", total);
    if (extractedEarly > 0) progress.advance("extract", extractedEarly);
  }
  // What was extracted while the documents were registered.
  await mergeBehindExtraction();
  await Promise.all(extractions);
  // Stopped or not, what was extracted is merged: the batch in hand is committed before stopping.
  await merging;
  if (mergeFailure) throw mergeFailure.error;
  while (ready.length > 0) await mergeBatch(ready.splice(0, batchSize));
  if (total > 0) progress.finish("extract");
  if (registrationFailure) throw registrationFailure.error;
  return result;
}
