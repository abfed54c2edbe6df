import { randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Index } from "usearch";
import { z } from "zod";
import type { VectorIndexConfig } from "../../config.js";
import type { VectorNamespace } from "../../types.js";
import { type AnnKeyEncoding, indexFileName, NEW_FILE_KEYS } from "./ann-keys.js";
import { type HeldLock, isHeld, lockWaiting, tryLock } from "./ann-locks.js";

/** Folder of the HNSW files, beside the SQLite file in the workspace. */
export const ANN_FOLDER = "vectors";

/** A manifest switch takes milliseconds; a lock this old was left by a process that hung or died. */
const MANIFEST_LOCK_STALE_MS = 30_000;
const MANIFEST_LOCK_WAIT_MS = 60_000;
/**
 * A background fold touches its lock after every batch of rows it adds; one untouched this long
 * was left by a process that died (even if its pid now belongs to another process).
 */
const FOLD_LOCK_STALE_MS = 10 * 60_000;

/** The main file a background fold wrote, to take the place of the main file and segments it folded. */
export interface FoldedFile {
  file: string;
  bytes: number;
  count: number;
  connectivity: number;
}

/** An index file as a manifest names it: its name, size in bytes (checked before mapping) and vector count. */
const indexFileFields = {
  file: z.string().min(1),
  bytes: z.number().int().min(0),
  count: z.number().int().min(0),
};

/**
 * A small HNSW file of the rows written in the generations (from, generation]: rows added beside a
 * large main file go into one of these instead of a rewrite of the main file (see AnnVectors).
 */
const SegmentSchema = z.object({
  ...indexFileFields,
  from: z.number().int().min(0),
  generation: z.number().int().min(0),
});
export type AnnSegment = z.infer<typeof SegmentSchema>;

/**
 * What an index file holds, written atomically beside it (`<ns>.json`) AFTER the files it names, so
 * the manifest never names a file that is not complete. `generation` is the namespace generation
 * the main file reflects, `segments` hold the rows of later generations, and `covered` is the
 * generation up to which rows and removals are accounted for: rows written later are scored
 * exactly until the index is refreshed.
 */
const ManifestSchema = z.object({
  ...indexFileFields,
  generation: z.number().int().min(0),
  dim: z.number().int().min(1),
  quantization: z.string(),
  connectivity: z.number().int(),
  builtAt: z.string(),
  segments: z.array(SegmentSchema).default([]),
  /** Manifests written before segments existed cover their main file's generation. */
  covered: z.number().int().min(0).optional(),
});
export type AnnManifest = z.infer<typeof ManifestSchema>;

const FoldErrorSchema = z.object({ message: z.string() });

/** The generation up to which the files (and the removals they leave out) account for every row. */
export function coveredGeneration(manifest: AnnManifest): number {
  return manifest.covered ?? manifest.generation;
}

/** Whether two manifests name the same files (a later one may only cover more generations). */
export function sameFiles(a: AnnManifest, b: AnnManifest): boolean {
  return (
    a.file === b.file &&
    a.segments.length === b.segments.length &&
    a.segments.every((segment, i) => segment.file === b.segments[i]?.file)
  );
}

/** Every file a manifest names, the main file first. */
function filesOf(manifest: AnnManifest): { file: string; bytes: number }[] {
  return [manifest, ...manifest.segments];
}

export type HnswIndex = Index;

/**
 * usearch (a native addon) is loaded by the first index built or opened: a workspace whose vectors
 * are all scored exactly, and every command that reads no vectors, never pays for it.
 */
const loadUsearch = (): typeof import("usearch") => createRequire(import.meta.url)("usearch");

/**
 * Threads for adding the next batch to `index`: one while the graph holds fewer than
 * serialBuildBelow vectors (usearch's concurrent add strands nodes, most often in a small graph),
 * buildThreads after.
 */
export function addThreads(index: HnswIndex, config: VectorIndexConfig): number {
  return index.size() < config.serialBuildBelow ? 1 : config.buildThreads;
}

/**
 * usearch sizes its per-thread search contexts when it reserves room: an add on one thread that
 * grows the index leaves it one context, and a later add on several threads then fails ("Reserve
 * capacity ahead of insertions!") unless that add grows the index again (a file of 4,097 to 6,143
 * vectors, built on one thread up to serialBuildBelow, failed so). Loading an index reserves a
 * context per core, so the index is saved and loaded again before its first add on several threads.
 */
export function reserveForThreads(index: HnswIndex): void {
  const file = join(tmpdir(), `kgrag-hnsw-${process.pid}-${randomBytes(4).toString("hex")}.usearch`);
  try {
    index.save(file);
    index.load(file);
  } finally {
    rmSync(file, { force: true });
  }
}

/**
 * The graph settings of a file of `vectors` vectors: cheaper inserts below
 * vectorIndex.smallFileVectors, a denser graph from largeFileVectors up.
 */
export function hnswSettings(
  vectors: number,
  config: VectorIndexConfig,
): { connectivity: number; expansionAdd: number } {
  if (config.largeFileVectors > 0 && vectors >= config.largeFileVectors) {
    return { connectivity: config.largeConnectivity, expansionAdd: config.largeExpansionAdd };
  }
  const small = vectors < config.smallFileVectors;
  return {
    connectivity: config.connectivity,
    expansionAdd: small ? config.smallExpansionAdd : config.expansionAdd,
  };
}

/**
 * An empty index for a file of about `vectors` vectors (its graph settings follow the size). A
 * file mapped or loaded into it keeps the graph degree it was built with.
 */
export function newHnswIndex(dim: number, config: VectorIndexConfig, vectors = 0): HnswIndex {
  const { Index, MetricKind, ScalarKind } = loadUsearch();
  const precisions = { f32: ScalarKind.F32, f16: ScalarKind.F16 } as const;
  const { connectivity, expansionAdd } = hnswSettings(vectors, config);
  return new Index({
    dimensions: dim,
    metric: MetricKind.Cos,
    quantization: precisions[config.quantization],
    connectivity,
    expansion_add: expansionAdd,
    expansion_search: config.expansionSearch,
    multi: false,
  });
}

/** The HNSW files of one workspace: one index file per namespace, named by its manifest. */
export class AnnFiles {
  constructor(readonly workspaceDir: string) {}

  folder(): string {
    return join(this.workspaceDir, ANN_FOLDER);
  }

  manifestPath(ns: VectorNamespace): string {
    return join(this.folder(), `${ns}.json`);
  }

  /** The manifest when it and the file it names are both intact; undefined otherwise (rebuild). */
  manifest(ns: VectorNamespace): AnnManifest | undefined {
    const path = this.manifestPath(ns);
    if (!existsSync(path)) return undefined;
    let parsed: ReturnType<typeof ManifestSchema.safeParse>;
    try {
      parsed = ManifestSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
    } catch {
      return undefined;
    }
    if (!parsed.success) return undefined;
    // A truncated file must never reach the native loader: its size is checked first.
    return this.intact(parsed.data) ? parsed.data : undefined;
  }

  /** The files a manifest names are still there at their full size (another process may have replaced them). */
  intact(manifest: AnnManifest): boolean {
    return filesOf(manifest).every(
      ({ file, bytes }) => statSync(join(this.folder(), file), { throwIfNoEntry: false })?.size === bytes,
    );
  }

  /**
   * Memory-maps the main file and the segments read-only: opening costs no reading, pages load as
   * searches touch them.
   */
  view(
    manifest: AnnManifest,
    config: VectorIndexConfig,
    /** Files this process has mapped already, by name: kept, not mapped again. */
    mappedBefore: Map<string, HnswIndex> = new Map(),
  ): { main: HnswIndex; segments: HnswIndex[] } | undefined {
    const mapped: HnswIndex[] = [];
    for (const { file, count } of [manifest, ...manifest.segments]) {
      // Mapping walks every node of the file (usearch re-indexes its keys): the main file, mapped
      // already when a segment is added beside it, is kept as it is.
      let index = mappedBefore.get(file);
      if (!index) {
        index = newHnswIndex(manifest.dim, config);
        index.view(join(this.folder(), file));
      }
      if (index.size() !== count) return undefined;
      mapped.push(index);
    }
    const [main, ...segments] = mapped;
    return main && { main, segments };
  }

  /** Loads the file into memory, for adding to it. */
  load(manifest: AnnManifest, config: VectorIndexConfig): HnswIndex {
    const index = newHnswIndex(manifest.dim, config, manifest.count);
    index.load(join(this.folder(), manifest.file));
    return index;
  }

  /**
   * Turns an index just saved into a read-only map of its file, which hands its in-memory copy
   * back at once. The wrapper's native memory is otherwise freed only when V8 collects it, and V8
   * does not know it holds gigabytes: a writer refreshing three namespaces held all three copies.
   */
  release(index: HnswIndex, file: string): void {
    index.view(join(this.folder(), file));
  }

  /**
   * Saves a new main file under a unique name, then switches the manifest to it with a rename
   * (atomic), then removes the files the old manifest named (its segments are folded into this
   * one). A crash at any point leaves a usable manifest.
   */
  save(
    ns: VectorNamespace,
    index: HnswIndex,
    facts: { generation: number; dim: number; keys: AnnKeyEncoding },
    config: VectorIndexConfig,
  ): AnnManifest {
    const { file, bytes } = this.writeIndexFile(ns, index, facts.generation, { keys: facts.keys });
    const manifest: AnnManifest = {
      file,
      bytes,
      count: index.size(),
      generation: facts.generation,
      dim: facts.dim,
      quantization: config.quantization,
      connectivity: index.connectivity(),
      builtAt: new Date().toISOString(),
      segments: [],
      covered: facts.generation,
    };
    const previous = this.underManifestLock(ns, () => {
      const current = this.manifest(ns);
      this.writeManifest(ns, manifest);
      return current;
    });
    for (const old of previous ? filesOf(previous) : [])
      if (old.file !== file) rmSync(join(this.folder(), old.file), { force: true });
    this.removeOrphans(ns, manifest, config.orphanFileMinutes);
    return manifest;
  }

  /**
   * Puts a background fold's main file in place of the main file and segments it was made from
   * (`base`), keeping the segments saved since. Nothing changes if the main file was replaced
   * meanwhile (a foreground fold or a rebuild, which hold every row already): the caller removes
   * its file. The generation of the new main file is the one `base` covered.
   */
  commitFold(
    ns: VectorNamespace,
    base: AnnManifest,
    folded: FoldedFile,
    orphanFileMinutes: number,
  ): AnnManifest | undefined {
    const committed = this.underManifestLock(ns, () => {
      const current = this.manifest(ns);
      const foldedSegments = base.segments.map((segment) => segment.file);
      if (
        !current ||
        current.file !== base.file ||
        !foldedSegments.every((file, i) => current.segments[i]?.file === file)
      )
        return undefined;
      const next: AnnManifest = {
        ...current,
        ...folded,
        generation: coveredGeneration(base),
        builtAt: new Date().toISOString(),
        segments: current.segments.slice(foldedSegments.length),
      };
      this.writeManifest(ns, next);
      return next;
    });
    if (!committed) return undefined;
    // The replaced files stay for a while: a reader or a writer may have read the old manifest and
    // be about to map or load them. Touched now, they are removed as orphans once that long unused.
    const now = new Date();
    for (const old of filesOf(base)) {
      try {
        utimesSync(join(this.folder(), old.file), now, now);
      } catch {
        // Gone already: nothing to keep.
      }
    }
    this.removeOrphans(ns, committed, orphanFileMinutes);
    return committed;
  }

  /** Whether the namespace has a manifest file at all (intact or not). */
  hasManifestFile(ns: VectorNamespace): boolean {
    return existsSync(this.manifestPath(ns));
  }

  /** Removes an index file no manifest names (a background fold that lost to another fold). */
  removeFile(file: string): void {
    rmSync(join(this.folder(), file), { force: true });
  }

  /** Where a failed background fold left its error (see fold-process.ts). */
  foldErrorPath(ns: VectorNamespace): string {
    return join(this.folder(), `${ns}.fold-error.json`);
  }

  /** The message of the last background fold's failure, if it failed. */
  foldError(ns: VectorNamespace): string | undefined {
    try {
      const parsed = FoldErrorSchema.safeParse(JSON.parse(readFileSync(this.foldErrorPath(ns), "utf8")));
      return parsed.success ? parsed.data.message : undefined;
    } catch {
      return undefined;
    }
  }

  clearFoldError(ns: VectorNamespace): void {
    rmSync(this.foldErrorPath(ns), { force: true });
  }

  /** The lock a background fold of the namespace holds while it runs (one at a time). */
  foldLockPath(ns: VectorNamespace): string {
    return join(this.folder(), `${ns}.fold.lock`);
  }

  /** The namespace's background fold lock, when no live process holds it. */
  tryFoldLock(ns: VectorNamespace): HeldLock | undefined {
    // No folder is made here: a fold of a workspace removed meanwhile must not bring it back.
    if (!existsSync(this.folder())) return undefined;
    return tryLock(this.foldLockPath(ns), FOLD_LOCK_STALE_MS);
  }

  /** Whether a background fold of the namespace is running now. */
  foldRunning(ns: VectorNamespace): boolean {
    return isHeld(this.foldLockPath(ns), FOLD_LOCK_STALE_MS);
  }

  /**
   * Manifest switches of every process on the workspace take turns: each reads the manifest it
   * replaces and writes the next one under this lock, so a segment saved by a writer and a fold
   * committed by a background process never overwrite each other.
   */
  private underManifestLock<T>(ns: VectorNamespace, step: () => T): T {
    mkdirSync(this.folder(), { recursive: true });
    const lock = lockWaiting(`${this.manifestPath(ns)}.lock`, MANIFEST_LOCK_WAIT_MS, MANIFEST_LOCK_STALE_MS);
    try {
      return step();
    } finally {
      lock.release();
    }
  }

  /**
   * Removes the namespace's index files and manifest drafts that no manifest names, left by a
   * process killed between writing one and renaming the manifest, and the files a lock is made or
   * moved aside under, left by one killed between two steps of a lock. Only those untouched for
   * `minutes`: another process may be between the two steps right now.
   */
  private removeOrphans(ns: VectorNamespace, manifest: AnnManifest, minutes: number): void {
    const named = new Set(filesOf(manifest).map(({ file }) => file));
    const ours = new RegExp(
      `^${ns}(-\\d+-[0-9a-f]{8}(\\.mixed)?\\.usearch|\\.json\\.[0-9a-f]{8}\\.tmp|\\.(fold|json)\\.lock\\.[0-9a-f]{8}\\.(new|stale))$`,
    );
    const cutoff = Date.now() - minutes * 60_000;
    for (const name of readdirSync(this.folder())) {
      if (!ours.test(name) || named.has(name)) continue;
      const path = join(this.folder(), name);
      try {
        const modified = statSync(path, { throwIfNoEntry: false })?.mtimeMs;
        if (modified !== undefined && modified < cutoff) rmSync(path, { force: true });
      } catch {
        // Tidying only: a file another process holds (a mapped file on Windows) waits for a later save.
      }
    }
  }

  /**
   * Saves a segment of the rows of generations (manifest's covered, generation] beside the main
   * file and names it in a new manifest (the same rename): no file is rewritten or removed. The
   * index is released to its file; if another process changed the manifest meanwhile, the file is
   * removed and the index left to be collected.
   */
  saveSegment(ns: VectorNamespace, index: HnswIndex, manifest: AnnManifest, generation: number): AnnManifest {
    const { file, bytes } = this.writeIndexFile(ns, index, generation, { keys: NEW_FILE_KEYS });
    const segment: AnnSegment = {
      file,
      bytes,
      count: index.size(),
      from: coveredGeneration(manifest),
      generation,
    };
    const next: AnnManifest = { ...manifest, segments: [...manifest.segments, segment], covered: generation };
    const saved = this.replaceManifest(ns, manifest, next);
    if (saved === next) this.release(index, file);
    else rmSync(join(this.folder(), file), { force: true });
    return saved;
  }

  /** Records that rows and removals up to `generation` are accounted for, with no file to add. */
  cover(ns: VectorNamespace, manifest: AnnManifest, generation: number): AnnManifest {
    return this.replaceManifest(ns, manifest, { ...manifest, covered: generation });
  }

  /**
   * Writes `next` only if the manifest is still the `base` it was made from: another process may
   * have folded meanwhile (removing the files `base` names) or saved a segment of the same rows.
   * Otherwise the current manifest stands, and is returned.
   */
  private replaceManifest(ns: VectorNamespace, base: AnnManifest, next: AnnManifest): AnnManifest {
    return this.underManifestLock(ns, () => {
      const current = this.manifest(ns);
      if (!current || !sameFiles(current, base) || coveredGeneration(current) !== coveredGeneration(base))
        return current ?? base;
      this.writeManifest(ns, next);
      return next;
    });
  }

  /** Saves the index under a new unique name that no manifest names yet; the name gives its key encoding. */
  writeIndexFile(
    ns: VectorNamespace,
    index: HnswIndex,
    generation: number,
    { createFolder = true, keys }: { createFolder?: boolean; keys: AnnKeyEncoding },
  ): { file: string; bytes: number } {
    if (createFolder) mkdirSync(this.folder(), { recursive: true });
    const file = indexFileName(`${ns}-${generation}`, randomBytes(4).toString("hex"), keys);
    const path = join(this.folder(), file);
    index.save(path);
    return { file, bytes: statSync(path).size };
  }

  private writeManifest(ns: VectorNamespace, manifest: AnnManifest): void {
    const temp = `${this.manifestPath(ns)}.${randomBytes(4).toString("hex")}.tmp`;
    writeFileSync(temp, JSON.stringify(manifest));
    renameSync(temp, this.manifestPath(ns));
  }
}

/**
 * A manifest built with other settings (dimension, precision, a graph degree the config gives to
 * no file) is rebuilt. Either configured degree serves: which one a main file should have follows
 * its size, and a fold sees to that (see outgrown).
 */
export function fitsConfig(manifest: AnnManifest, dim: number, config: VectorIndexConfig): boolean {
  const degrees = [config.connectivity, ...(config.largeFileVectors > 0 ? [config.largeConnectivity] : [])];
  return (
    manifest.dim === dim &&
    manifest.quantization === config.quantization &&
    degrees.includes(manifest.connectivity)
  );
}

/** Whether a main file about to hold `vectors` vectors calls for the other graph degree (rebuilt, not extended). */
export function outgrown(manifest: AnnManifest, vectors: number, config: VectorIndexConfig): boolean {
  return hnswSettings(vectors, config).connectivity !== manifest.connectivity;
}
