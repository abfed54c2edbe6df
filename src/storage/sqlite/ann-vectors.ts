import type { VectorIndexConfig } from "../../config.js";
import type { ScoredId, VectorNamespace } from "../../types.js";
import { type ProgressReporter, silentProgress } from "../../util/progress.js";
import { TopK } from "../ranking/top-k.js";
import { decodeVector, decodeVectorInto } from "../vectors/vector-blob.js";
import { normalizeInPlace } from "../vectors/vector-math.js";
import {
  type AnnFiles,
  type AnnManifest,
  type AnnSegment,
  addThreads,
  coveredGeneration,
  fitsConfig,
  type HnswIndex,
  newHnswIndex,
  outgrown,
  reserveForThreads,
  sameFiles,
} from "./ann-file.js";
import { type AnnKeyEncoding, fileKey, keysOfFile, NEW_FILE_KEYS, rowidOfKey } from "./ann-keys.js";
import { type BackgroundFold, startBackgroundFold } from "./background-fold.js";
import { idList, type Sql } from "./connection.js";

interface KeyedRow {
  key: number;
  id: string;
  gen: number;
  dim: number;
  vector: Buffer;
}

/** One namespace's index files, memory-mapped, with the rows written since they were saved. */
interface OpenIndex {
  manifest: AnnManifest;
  index: HnswIndex;
  /** The manifest's segments, in its order. */
  segments: HnswIndex[];
  /** Rows newer than the files, keyed by the namespace generation they were read at. */
  delta?: { generation: number; rows: ScoredRow[] };
}

/** A key one of the files returned, with the generations whose rows that file holds (from, to]. */
interface RankedKey {
  key: number;
  distance: number;
  from: number;
  to: number;
}

interface ScoredRow {
  id: string;
  unit: Float32Array;
}

/** Rows streamed into the index per native call while building. */
const BUILD_BATCH = 2048;
/** Rows read per snapshot by a background rebuild (see rebuiltUpTo). */
const REBUILD_READ_BATCH = 10_000;

/**
 * Approximate search over a namespace's dense vectors through an HNSW file (usearch) beside the
 * SQLite file. SQLite stays the source of truth: the file is a rebuildable copy saved at a
 * namespace generation, rows written after it are scored exactly, and every hit returned is
 * re-scored from its stored vector, so scores are exact cosines and a stale file never returns
 * a deleted or outdated vector. Reading and rebuilding the file write nothing to SQLite.
 *
 * Rows added to a large namespace go into small segment files beside the main one while they
 * are few (vectorIndex.segmentShare, maxSegments), as in an LSM tree: rewriting a 2M-vector main
 * file meant loading it whole, inserting and saving it again, most of a 10k-chunk addition to a
 * 1M-chunk workspace. A hit counts only from the file holding its row's current generation.
 */
export class AnnVectors {
  private readonly open = new Map<VectorNamespace, OpenIndex>();
  /** Namespaces whose fold fell due and was left to a background process (see startDueFolds). */
  private readonly foldsDue = new Set<VectorNamespace>();
  private readonly foldsStarted: BackgroundFold[] = [];

  constructor(
    private readonly sql: Sql,
    private readonly files: AnnFiles,
    private readonly config: VectorIndexConfig,
    private readonly progress: ProgressReporter = silentProgress,
  ) {}

  search(ns: VectorNamespace, query: number[], topK: number, allow?: Set<string>): ScoredId[] {
    const unit = Float32Array.from(query);
    normalizeInPlace(unit);
    if (allow && allow.size <= this.config.exactScopeMax) return this.scoreIds(ns, unit, allow, topK);
    const state = this.current(ns);
    if (!state) return [];
    if (unit.length !== state.manifest.dim) {
      throw new Error(
        `Query vector has ${unit.length} dimensions but the "${ns}" vectors have ${state.manifest.dim}: ` +
          "embed the query with the workspace's embedding model.",
      );
    }
    const best = new TopK(topK);
    const found: string[] = [];
    const offer = (row: ScoredRow) => {
      found.push(row.id);
      best.offer(dot(unit, row.unit), found.length - 1);
    };
    for (const row of this.candidates(ns, state, unit, topK, allow)) offer(row);
    for (const row of state.delta?.rows ?? []) if (!allow || allow.has(row.id)) offer(row);
    const hits = best.sorted().map(({ row, score }) => ({ id: found[row] as string, score }));
    // A scope too narrow for the HNSW neighbourhood: score the allowed rows exactly instead.
    if (allow && hits.length < Math.min(topK, allow.size)) return this.scoreIds(ns, unit, allow, topK);
    return hits;
  }

  /**
   * Brings the namespace's file up to date now (rows written and deleted since it was saved),
   * building it from the stored vectors when it is missing, damaged or built with other settings.
   */
  refresh(ns: VectorNamespace): AnnManifest | undefined {
    const dim = this.storedDimension(ns);
    if (dim === undefined) return undefined;
    let saved: AnnManifest | undefined;
    // A segment is not saved over a manifest another process switched meanwhile (a background
    // fold committing): the update is made again on the new manifest.
    for (let attempt = 0; attempt < 3; attempt++) {
      const manifest = this.files.manifest(ns);
      saved =
        manifest && fitsConfig(manifest, dim, this.config)
          ? this.update(ns, manifest, dim)
          : this.build(ns, dim);
      if (coveredGeneration(saved) >= this.generation(ns)) break;
    }
    // The next search re-reads the manifest, keeping the files already mapped (see opened).
    const open = this.open.get(ns);
    if (open) open.delta = undefined;
    return saved;
  }

  /** Forgets removals the saved file already reflects (only a writer calls this). */
  pruneRemovals(ns: VectorNamespace): void {
    const manifest = this.files.manifest(ns);
    // Only with no manifest at all: one that fails its check now (files being switched) is not gone.
    if (!manifest) {
      if (!this.files.hasManifestFile(ns))
        this.sql.run("DELETE FROM vector_removals WHERE namespace = ?", ns);
      return;
    }
    this.sql.run("DELETE FROM vector_removals WHERE namespace = ? AND gen <= ?", ns, manifest.generation);
  }

  /** Rows written since the namespace's file was saved (all of them when there is no file). */
  pendingRows(ns: VectorNamespace, manifest: AnnManifest | undefined): number {
    return (
      this.sql.column<number>(
        "SELECT count(*) FROM vectors WHERE namespace = ? AND gen > ?",
        ns,
        manifest ? coveredGeneration(manifest) : -1,
      )[0] ?? 0
    );
  }

  private removedSince(ns: VectorNamespace, generation: number): number {
    return (
      this.sql.column<number>(
        "SELECT count(*) FROM vector_removals WHERE namespace = ? AND gen > ?",
        ns,
        generation,
      )[0] ?? 0
    );
  }

  /** The file's size and how many stored rows it does not reflect yet (a missing file: all). */
  status(ns: VectorNamespace): {
    fresh: boolean;
    bytes?: number;
    pending: number;
    segments?: number;
    folding?: boolean;
    foldError?: string;
  } {
    const manifest = this.files.manifest(ns);
    const pending = this.pendingRows(ns, manifest);
    const removed = manifest ? this.removedSince(ns, coveredGeneration(manifest)) : 0;
    const fresh = manifest !== undefined && pending === 0 && removed === 0;
    if (!manifest) return { fresh, pending };
    const bytes = manifest.segments.reduce((sum, segment) => sum + segment.bytes, manifest.bytes);
    const folding = this.files.foldRunning(ns);
    const foldError = this.files.foldError(ns);
    return {
      fresh,
      bytes,
      pending: pending + removed,
      segments: manifest.segments.length,
      ...(folding ? { folding } : {}),
      ...(foldError ? { foldError } : {}),
    };
  }

  close(): void {
    this.open.clear();
  }

  /** The open file with its delta read at the current generation, refreshed if too far behind. */
  private current(ns: VectorNamespace): OpenIndex | undefined {
    const generation = this.generation(ns);
    // Nothing written since the delta was read and the mapped file is still in place: it and the
    // delta answer exactly, so the manifest is not read and parsed again (one stat instead).
    const unchanged = this.open.get(ns);
    if (unchanged?.delta?.generation === generation && this.files.intact(unchanged.manifest))
      return unchanged;
    let state = this.opened(ns);
    if (!state || this.pendingRows(ns, state.manifest) > this.config.maxDelta) {
      if (!this.refresh(ns)) return undefined;
      state = this.opened(ns);
      if (!state) return undefined;
    }
    if (state.delta?.generation !== generation) {
      state.delta = { generation, rows: this.deltaRows(ns, coveredGeneration(state.manifest)) };
    }
    return state;
  }

  /** The memory-mapped files the manifest names now (another process may have replaced or added some). */
  private opened(ns: VectorNamespace, retried = false): OpenIndex | undefined {
    const manifest = this.files.manifest(ns);
    if (!manifest) return undefined;
    const cached = this.open.get(ns);
    if (cached && sameFiles(cached.manifest, manifest)) {
      if (coveredGeneration(cached.manifest) !== coveredGeneration(manifest)) {
        cached.manifest = manifest;
        cached.delta = undefined;
      }
      return cached;
    }
    const dim = this.storedDimension(ns);
    if (dim === undefined || !fitsConfig(manifest, dim, this.config)) return undefined;
    const mappedBefore = new Map<string, HnswIndex>();
    if (cached) {
      mappedBefore.set(cached.manifest.file, cached.index);
      cached.manifest.segments.forEach((segment, i) => {
        mappedBefore.set(segment.file, cached.segments[i] as HnswIndex);
      });
    }
    let mapped: ReturnType<AnnFiles["view"]>;
    try {
      mapped = this.files.view(manifest, this.config, mappedBefore);
    } catch (error) {
      // A writer replaced the files between reading the manifest and mapping them: map the new ones.
      if (retried || sameManifest(this.files.manifest(ns), manifest)) throw error;
      return this.opened(ns, true);
    }
    if (!mapped) return undefined;
    const state: OpenIndex = { manifest, index: mapped.main, segments: mapped.segments };
    this.open.set(ns, state);
    return state;
  }

  /**
   * The best HNSW hits not superseded since the file was saved (and allowed), with their stored
   * vectors: only the first `rescore` x topK usable ones are read back, in the index's order, since
   * each costs a random read of a row (the index's own distances rank them almost exactly).
   */
  private candidates(
    ns: VectorNamespace,
    state: OpenIndex,
    unit: Float32Array,
    topK: number,
    allow: Set<string> | undefined,
  ): ScoredRow[] {
    const size = state.manifest.segments.reduce((sum, segment) => sum + segment.count, state.manifest.count);
    if (size === 0 || topK <= 0) return [];
    // Filtering after the search keeps about |allow| / size of the hits: ask for that many more.
    const keysPerUsable = allow ? size / Math.max(1, allow.size) : 1;
    const hits = rankedKeys(state, unit, Math.ceil(topK * this.config.oversample * keysPerUsable));
    const wanted = Math.ceil(topK * this.config.rescore);
    const rows: ScoredRow[] = [];
    for (let next = 0; rows.length < wanted && next < hits.length; ) {
      const batch = hits.slice(next, next + Math.ceil((wanted - rows.length) * keysPerUsable));
      next += batch.length;
      const byKey = new Map(
        this.keyedRows(
          ns,
          batch.map((hit) => hit.key),
        ).map((row) => [row.key, row]),
      );
      for (const { key, from, to } of batch) {
        const row = byKey.get(key);
        // A file's copy of a row written again later is outdated: the later file or the delta has it.
        if (!row || row.gen <= from || row.gen > to || (allow && !allow.has(row.id))) continue;
        rows.push(toScoredRow(row));
      }
    }
    return rows;
  }

  /** The namespace's rows of these keys (a deleted key has none), in rowid order. */
  private keyedRows(ns: VectorNamespace, keys: number[]): KeyedRow[] {
    // `+namespace` keeps SQLite from walking the namespace's whole index (vectors_by_gen) and
    // testing each row against the keys: it looked up every key by rowid instead (25 ms -> 0.5 ms
    // at 60,000 chunk vectors).
    return this.sql.all<KeyedRow>(
      `SELECT rowid AS key, id, gen, dim, vector FROM vectors
       WHERE rowid IN (SELECT value FROM json_each(?)) AND +namespace = ?`,
      JSON.stringify(keys),
      ns,
    );
  }

  private deltaRows(ns: VectorNamespace, since: number): ScoredRow[] {
    return this.sql
      .all<KeyedRow>(
        "SELECT rowid AS key, id, gen, dim, vector FROM vectors WHERE namespace = ? AND gen > ?",
        ns,
        since,
      )
      .map(toScoredRow);
  }

  /** Exact cosine over the given ids only (a pre-filter: top-k is taken among them). */
  private scoreIds(ns: VectorNamespace, unit: Float32Array, ids: Set<string>, topK: number): ScoredId[] {
    if (ids.size === 0 || topK <= 0) return [];
    const best = new TopK(topK);
    const found: string[] = [];
    const rows = this.sql
      .statement(
        "SELECT rowid AS key, id, gen, dim, vector FROM vectors WHERE namespace = ? AND id IN (SELECT value FROM json_each(?))",
      )
      .iterate(ns, idList(ids)) as IterableIterator<KeyedRow>;
    for (const row of rows) {
      const scored = toScoredRow(row);
      if (scored.unit.length !== unit.length) continue;
      found.push(scored.id);
      best.offer(dot(unit, scored.unit), found.length - 1);
    }
    return best.sorted().map(({ row, score }) => ({ id: found[row] as string, score }));
  }

  /** A new file from every stored vector of the namespace, read in one snapshot. */
  private build(ns: VectorNamespace, dim: number): AnnManifest {
    return this.readSnapshot(() => {
      const generation = this.generation(ns);
      const total = this.rowCount(ns);
      const index = newHnswIndex(dim, this.config, total);
      const rows = this.sql
        .statement("SELECT rowid AS key, vector FROM vectors WHERE namespace = ? ORDER BY rowid")
        .iterate(ns) as IterableIterator<{ key: number; vector: Buffer }>;
      this.addWithProgress(ns, index, rows, total, dim, NEW_FILE_KEYS);
      return this.saveAndRelease(ns, index, { generation, dim, keys: NEW_FILE_KEYS });
    });
  }

  /** Saves the index under a new name and frees its in-memory copy (see AnnFiles.release). */
  private saveAndRelease(
    ns: VectorNamespace,
    index: HnswIndex,
    facts: { generation: number; dim: number; keys: AnnKeyEncoding },
  ): AnnManifest {
    const manifest = this.files.save(ns, index, facts, this.config);
    this.files.release(index, manifest.file);
    return manifest;
  }

  /**
   * Accounts for the rows written since the files were saved: in a new segment while the
   * segments stay small beside the main file, else by folding everything into the main file.
   */
  private update(ns: VectorNamespace, manifest: AnnManifest, dim: number): AnnManifest {
    return this.readSnapshot(() => {
      const generation = this.generation(ns);
      const covered = coveredGeneration(manifest);
      if (generation === covered) return manifest;
      const changed = this.sql
        .statement("SELECT rowid AS key, vector FROM vectors WHERE namespace = ? AND gen > ?")
        .all(ns, covered) as { key: number; vector: Buffer }[];
      if (this.foldDue(ns, manifest, changed.length)) {
        if (!this.leavesFoldToBackground(manifest, changed.length))
          return this.fold(ns, manifest, dim, generation);
        this.foldsDue.add(ns);
      }
      if (changed.length === 0) return this.files.cover(ns, manifest, generation);
      const index = newHnswIndex(dim, this.config, changed.length);
      this.addWithProgress(ns, index, changed.values(), changed.length, dim, NEW_FILE_KEYS);
      return this.files.saveSegment(ns, index, manifest, generation);
    });
  }

  /**
   * Whether the segments (with `newRows` about to join them) should be folded into the main file:
   * too many of them, or their rows and the removals since the main file past segmentShare of it.
   */
  private foldDue(ns: VectorNamespace, manifest: AnnManifest, newRows = 0): boolean {
    const { segmentShare, maxSegments } = this.config;
    if (manifest.segments.length >= maxSegments) return true;
    const segmentRows = manifest.segments.reduce((sum, segment) => sum + segment.count, newRows);
    return segmentRows + this.removedSince(ns, manifest.generation) > segmentShare * manifest.count;
  }

  /**
   * Whether a fold now due can wait for a background process, the new rows going into one more
   * segment meanwhile: not when folds are kept in the writer, when the segments have piled up past
   * maxSegmentsWhileFolding (background folds failing or lagging), or when the new rows are many
   * beside the main file (the fold would insert them again: cheaper to fold them in at once).
   */
  private leavesFoldToBackground(manifest: AnnManifest, newRows: number): boolean {
    const { foldInBackground, maxSegmentsWhileFolding, segmentShare } = this.config;
    return (
      foldInBackground &&
      manifest.segments.length < maxSegmentsWhileFolding &&
      newRows <= segmentShare * manifest.count
    );
  }

  /**
   * Starts one background fold process for the namespaces whose fold was left to it since the last
   * call (a writer calls this after refreshing every namespace), leaving out those being folded now.
   */
  startDueFolds(): void {
    const due = [...this.foldsDue].filter((ns) => !this.files.foldRunning(ns));
    this.foldsDue.clear();
    if (due.length === 0) return;
    const pid = startBackgroundFold(this.files.workspaceDir, due, this.config);
    if (pid === undefined) return;
    this.foldsStarted.push({ pid, namespaces: due });
    // A long-running server refreshes many times: only the latest few are kept.
    if (this.foldsStarted.length > 16) this.foldsStarted.shift();
  }

  /** The background folds this process started (a bench waits for them to end). */
  backgroundFolds(): readonly BackgroundFold[] {
    return this.foldsStarted;
  }

  /**
   * The background fold (run by fold-process.ts, holding the namespace's fold lock): the main file
   * with every row and removal its segments account for, saved under a new name and put in place
   * of the main file and those segments. Segments saved meanwhile stay; a main file replaced
   * meanwhile wins. Reads SQLite in one snapshot and writes nothing to it. A main file keyed by
   * rowid (saved before keys were mixed) is built anew here, off the writer's path: mapping it
   * costs every later process seconds of CPU at a million vectors.
   */
  foldSaved(ns: VectorNamespace, base = this.files.manifest(ns)): AnnManifest | undefined {
    // Another fold may have done it since this one was asked for.
    if (!base || !this.foldDue(ns, base)) return base;
    const dim = this.storedDimension(ns);
    if (dim === undefined || !fitsConfig(base, dim, this.config)) return undefined;
    const upTo = coveredGeneration(base);
    const total = this.rowCount(ns);
    const baseKeys = keysOfFile(base.file);
    const rebuilt = outgrown(base, total, this.config) || baseKeys !== NEW_FILE_KEYS;
    const index = rebuilt ? this.rebuiltUpTo(ns, dim, upTo, total) : this.foldedSince(ns, base, dim, upTo);
    if (!index) return undefined;
    const keys = rebuilt ? NEW_FILE_KEYS : baseKeys;
    const { file, bytes } = this.files.writeIndexFile(ns, index, upTo, { createFolder: false, keys });
    const folded = { file, bytes, count: index.size(), connectivity: index.connectivity() };
    this.files.release(index, file);
    const committed = this.files.commitFold(ns, base, folded, this.config.orphanFileMinutes);
    if (!committed) this.files.removeFile(file);
    return committed;
  }

  /** `base`'s main file with the rows and removals from its generation up to `upTo` (see foldedMain). */
  private foldedSince(
    ns: VectorNamespace,
    base: AnnManifest,
    dim: number,
    upTo: number,
  ): HnswIndex | undefined {
    const { removed, changed } = this.readSnapshot(() => ({
      removed: this.sql.column<number>(
        "SELECT key FROM vector_removals WHERE namespace = ? AND gen > ? AND gen <= ?",
        ns,
        base.generation,
        upTo,
      ),
      changed: this.sql
        .statement("SELECT rowid AS key, vector FROM vectors WHERE namespace = ? AND gen > ? AND gen <= ?")
        .all(ns, base.generation, upTo) as { key: number; vector: Buffer }[],
    }));
    return this.foldedMain(ns, base, dim, removed, changed);
  }

  /**
   * A new main file from every stored row of generation `upTo` or older, for a fold whose main file
   * outgrew its graph degree. Read a batch at a time, each its own snapshot, so that a long build
   * never holds one read transaction (which would keep SQLite from checkpointing its log): a row
   * rewritten meanwhile has a newer generation, which a later segment or the exact scan of newer
   * rows accounts for, as for any fold.
   */
  private rebuiltUpTo(ns: VectorNamespace, dim: number, upTo: number, total: number): HnswIndex {
    const index = newHnswIndex(dim, this.config, total);
    const batch = this.sql.statement(
      // The unary + keeps SQLite off the (namespace, gen) index: a walk along the rowids, no sort.
      "SELECT rowid AS key, vector FROM vectors WHERE +namespace = ? AND +gen <= ? AND rowid > ? ORDER BY rowid LIMIT ?",
    );
    function* rows(): Generator<{ key: number; vector: Buffer }> {
      let after = 0;
      for (;;) {
        const read = batch.all(ns, upTo, after, REBUILD_READ_BATCH) as { key: number; vector: Buffer }[];
        if (read.length === 0) return;
        yield* read;
        after = (read.at(-1) as { key: number }).key;
      }
    }
    this.addWithProgress(ns, index, rows(), total, dim, NEW_FILE_KEYS);
    return index;
  }

  /** Adds the rows (`total` of them) with a progress bar: a build, a segment or a fold. */
  private addWithProgress(
    ns: VectorNamespace,
    index: HnswIndex,
    rows: Iterator<{ key: number; vector: Buffer }>,
    total: number,
    dim: number,
    keys: AnnKeyEncoding,
  ): void {
    const step = `vector index ${ns}`;
    this.progress.start(step, total);
    addInBatches(index, rows, { dim, keys }, this.config, (added) => this.progress.advance(step, added));
    this.progress.finish(step);
  }

  /**
   * Applies the removals and rows written since the main file's generation to a loaded copy of it,
   * or builds the file anew when its size now calls for the other graph degree.
   */
  private fold(ns: VectorNamespace, manifest: AnnManifest, dim: number, generation: number): AnnManifest {
    if (outgrown(manifest, this.rowCount(ns), this.config)) return this.build(ns, dim);
    const removed = this.sql.column<number>(
      "SELECT key FROM vector_removals WHERE namespace = ? AND gen > ?",
      ns,
      manifest.generation,
    );
    const changed = this.sql
      .statement("SELECT rowid AS key, vector FROM vectors WHERE namespace = ? AND gen > ?")
      .all(ns, manifest.generation) as { key: number; vector: Buffer }[];
    const index = this.foldedMain(ns, manifest, dim, removed, changed);
    // A background fold switched the manifest since it was read: refresh tries again on the new one.
    if (!index) return this.files.manifest(ns) ?? manifest;
    return this.saveAndRelease(ns, index, { generation, dim, keys: keysOfFile(manifest.file) });
  }

  /**
   * A fold's work: `base`'s main file loaded, the removed and changed rows taken out and the
   * changed ones added again. Undefined when another process replaced that file since `base` was
   * read (its fold or rebuild holds every row already), which is why it could not be loaded.
   */
  private foldedMain(
    ns: VectorNamespace,
    base: AnnManifest,
    dim: number,
    removed: number[],
    changed: { key: number; vector: Buffer }[],
  ): HnswIndex | undefined {
    let index: HnswIndex;
    try {
      index = this.files.load(base, this.config);
    } catch (error) {
      if (this.files.manifest(ns)?.file !== base.file) return undefined;
      throw error;
    }
    // The loaded file keeps its own keys' encoding: rows taken out and added go in under it.
    const keys = keysOfFile(base.file);
    for (const rowid of [...removed, ...changed.map((row) => row.key)]) {
      const key = fileKey(rowid, keys);
      if (index.contains(key)) index.remove(key);
    }
    this.addWithProgress(ns, index, changed.values(), changed.length, dim, keys);
    return index;
  }

  private generation(ns: VectorNamespace): number {
    return (
      this.sql.column<number>("SELECT generation FROM vector_generations WHERE namespace = ?", ns)[0] ?? 0
    );
  }

  private rowCount(ns: VectorNamespace): number {
    return this.sql.column<number>("SELECT count(*) FROM vectors WHERE namespace = ?", ns)[0] ?? 0;
  }

  private storedDimension(ns: VectorNamespace): number | undefined {
    return this.sql.column<number>("SELECT dim FROM vectors WHERE namespace = ? LIMIT 1", ns)[0];
  }

  /** One read transaction (never a write lock), so the generation and the rows agree. */
  private readSnapshot<T>(read: () => T): T {
    return this.sql.db.inTransaction ? read() : this.sql.db.transaction(read).deferred();
  }
}

/**
 * The nearest keys of the main file and of each segment (`want` from each), nearest first, each
 * with the generations its file holds: the main file's up to its own, a segment's (from, to].
 */
function rankedKeys(state: OpenIndex, unit: Float32Array, want: number): RankedKey[] {
  const { manifest } = state;
  const files = [
    {
      index: state.index,
      from: Number.NEGATIVE_INFINITY,
      to: manifest.generation,
      keys: keysOfFile(manifest.file),
    },
    ...state.segments.map((index, i) => {
      const segment = manifest.segments[i] as AnnSegment;
      return { index, from: segment.from, to: segment.generation, keys: keysOfFile(segment.file) };
    }),
  ];
  const hits: RankedKey[] = [];
  for (const { index, from, to, keys } of files) {
    const count = Math.min(index.size(), want);
    if (count === 0) continue;
    const found = index.search(unit, count, 1);
    found.keys.forEach((key, i) => {
      hits.push({ key: rowidOfKey(key, keys), distance: found.distances[i] as number, from, to });
    });
  }
  if (files.length > 1) hits.sort((a, b) => a.distance - b.distance);
  return hits;
}

function addInBatches(
  index: HnswIndex,
  rows: Iterator<{ key: number; vector: Buffer }>,
  { dim, keys: encoding }: { dim: number; keys: AnnKeyEncoding },
  config: VectorIndexConfig,
  advance: (added: number) => void,
): void {
  const keys = new BigUint64Array(BUILD_BATCH);
  const block = new Float32Array(BUILD_BATCH * dim);
  let filled = 0;
  let lastThreads: number | undefined;
  const flush = () => {
    if (filled === 0) return;
    const threads = addThreads(index, config);
    if (threads !== 1 && lastThreads === 1) reserveForThreads(index);
    lastThreads = threads;
    index.add(keys.subarray(0, filled), block.subarray(0, filled * dim), threads);
    advance(filled);
    filled = 0;
  };
  for (let next = rows.next(); !next.done; next = rows.next()) {
    const row = next.value;
    keys[filled] = fileKey(row.key, encoding);
    decodeVectorInto(row.vector, dim, block, filled * dim);
    normalizeInPlace(block, filled * dim, dim);
    filled += 1;
    if (filled === BUILD_BATCH) flush();
  }
  flush();
}

function toScoredRow(row: KeyedRow): ScoredRow {
  const unit = decodeVector(row.vector, row.dim, row.id);
  normalizeInPlace(unit);
  return { id: row.id, unit };
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

/** Two reads of a manifest that name the same files and cover the same generations. */
function sameManifest(a: AnnManifest | undefined, b: AnnManifest): boolean {
  return a !== undefined && sameFiles(a, b) && coveredGeneration(a) === coveredGeneration(b);
}
