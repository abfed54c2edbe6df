import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Index } from "usearch";
import { z } from "zod";
import type { VectorIndexConfig } from "../../config.js";
import type { VectorNamespace } from "../../types.js";

/** Folder of the HNSW files, beside the SQLite file in the workspace. */
export const ANN_FOLDER = "vectors";

/**
 * What an index file holds, written atomically beside it (`<ns>.json`) AFTER the file itself, so
 * the manifest never names a file that is not complete. `generation` is the namespace generation
 * the file reflects: rows written later are scored exactly until the file is refreshed.
 */
const ManifestSchema = z.object({
  file: z.string().min(1),
  bytes: z.number().int().min(0),
  count: z.number().int().min(0),
  generation: z.number().int().min(0),
  dim: z.number().int().min(1),
  quantization: z.string(),
  connectivity: z.number().int(),
  builtAt: z.string(),
});
export type AnnManifest = z.infer<typeof ManifestSchema>;

export type HnswIndex = Index;

/**
 * usearch (a native addon) is loaded by the first index built or opened: a workspace whose vectors
 * are all scored exactly, and every command that reads no vectors, never pays for it.
 */
const loadUsearch = (): typeof import("usearch") => createRequire(import.meta.url)("usearch");

/** The settings an index file was built with must match the current ones to be reused. */
export function newHnswIndex(dim: number, config: VectorIndexConfig): HnswIndex {
  const { Index, MetricKind, ScalarKind } = loadUsearch();
  const precisions = { f32: ScalarKind.F32, f16: ScalarKind.F16 } as const;
  return new Index({
    dimensions: dim,
    metric: MetricKind.Cos,
    quantization: precisions[config.quantization],
    connectivity: config.connectivity,
    expansion_add: config.expansionAdd,
    expansion_search: config.expansionSearch,
    multi: false,
  });
}

/** The HNSW files of one workspace: one index file per namespace, named by its manifest. */
export class AnnFiles {
  constructor(private readonly workspaceDir: string) {}

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

  /** The file a manifest names is still there at its full size (another process may have replaced it). */
  intact(manifest: AnnManifest): boolean {
    return statSync(join(this.folder(), manifest.file), { throwIfNoEntry: false })?.size === manifest.bytes;
  }

  /** Memory-maps the file read-only: opening costs no reading, pages load as searches touch them. */
  view(manifest: AnnManifest, config: VectorIndexConfig): HnswIndex | undefined {
    const index = newHnswIndex(manifest.dim, config);
    index.view(join(this.folder(), manifest.file));
    if (index.size() !== manifest.count) return undefined;
    return index;
  }

  /** Loads the file into memory, for adding to it. */
  load(manifest: AnnManifest, config: VectorIndexConfig): HnswIndex {
    const index = newHnswIndex(manifest.dim, config);
    index.load(join(this.folder(), manifest.file));
    return index;
  }

  /**
   * Turns an index just saved into a read-only map of its file, which hands its in-memory copy
   * back at once. The wrapper's native memory is otherwise freed only when V8 collects it, and V8
   * does not know it holds gigabytes: a writer refreshing three namespaces held all three copies.
   */
  release(index: HnswIndex, manifest: AnnManifest): void {
    index.view(join(this.folder(), manifest.file));
  }

  /**
   * Saves under a new unique name, then switches the manifest to it with a rename (atomic), then
   * removes the file the old manifest named. A crash at any point leaves a usable manifest.
   */
  save(
    ns: VectorNamespace,
    index: HnswIndex,
    facts: { generation: number; dim: number },
    config: VectorIndexConfig,
  ): AnnManifest {
    mkdirSync(this.folder(), { recursive: true });
    const previous = this.manifest(ns);
    const file = `${ns}-${facts.generation}-${randomBytes(4).toString("hex")}.usearch`;
    const path = join(this.folder(), file);
    index.save(path);
    const manifest: AnnManifest = {
      file,
      bytes: statSync(path).size,
      count: index.size(),
      generation: facts.generation,
      dim: facts.dim,
      quantization: config.quantization,
      connectivity: config.connectivity,
      builtAt: new Date().toISOString(),
    };
    const temp = `${this.manifestPath(ns)}.${randomBytes(4).toString("hex")}.tmp`;
    writeFileSync(temp, JSON.stringify(manifest));
    renameSync(temp, this.manifestPath(ns));
    if (previous && previous.file !== file) rmSync(join(this.folder(), previous.file), { force: true });
    return manifest;
  }
}

/** A manifest built with other settings (dimension, precision, graph degree) is rebuilt. */
export function fitsConfig(manifest: AnnManifest, dim: number, config: VectorIndexConfig): boolean {
  return (
    manifest.dim === dim &&
    manifest.quantization === config.quantization &&
    manifest.connectivity === config.connectivity
  );
}
