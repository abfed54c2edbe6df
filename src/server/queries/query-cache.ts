import { SharedWorkCache } from "../../util/shared-work-cache.js";
import type { PlainQueryOptions } from "./query-messages.js";

/** How many query results a workspace keeps, and how many bytes of JSON they may hold in all. */
export interface QueryCacheSettings {
  /** 0 turns the cache off. */
  maxEntries: number;
  maxBytes: number;
}

/** A query's JSON (in UTF-8) and whether it came from the cache. */
export interface CachedJson {
  json: Buffer;
  hit: boolean;
}

/**
 * Query results of one workspace (as the JSON the route sends), keyed by the workspace's data
 * generation and the request with its options in a canonical order. Any write to the workspace,
 * by a job's process, a curation route or another process, moves the generation, so a result is
 * only ever served for the data it was computed on; entries of older generations are never asked
 * for again and age out. Identical requests arriving while one is computed share its work.
 */
export class QueryCache {
  private readonly results: SharedWorkCache<Buffer>;

  constructor(
    settings: QueryCacheSettings,
    /** The store's data generation (see GraphStore.dataGeneration). */
    private readonly generation: () => string,
  ) {
    this.results = new SharedWorkCache<Buffer>(settings);
  }

  /**
   * The cached JSON of this request at the current generation, else `compute`'s. The generation
   * is read before computing: a write landing meanwhile files the result under the old one. The
   * caller stops waiting when `signal` aborts; the computation, shared by identical requests, is
   * cancelled (its signal aborted) once all of them have.
   */
  async json(
    question: string,
    options: PlainQueryOptions,
    compute: (signal: AbortSignal) => Promise<Buffer>,
    signal?: AbortSignal,
  ): Promise<CachedJson> {
    const key = `${this.generation()}\u0000${requestKey(question, options)}`;
    const { value, hit } = await this.results.get(key, compute, signal);
    return { json: value, hit };
  }

  get size(): number {
    return this.results.size;
  }
}

/** The question and options as JSON with object keys sorted, so equal requests give equal keys. */
export function requestKey(question: string, options: PlainQueryOptions): string {
  return JSON.stringify({ question, options }, (_key, value: unknown) =>
    value && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}
