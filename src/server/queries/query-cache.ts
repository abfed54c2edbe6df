import { LRUCache } from "lru-cache";
import type { PlainQueryOptions } from "./query-messages.js";

/** How many query results a workspace keeps, and how much text they may hold in all. */
export interface QueryCacheSettings {
  /** 0 turns the cache off. */
  maxEntries: number;
  maxBytes: number;
}

/** A query's JSON and whether it came from the cache. */
export interface CachedJson {
  json: string;
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
  private readonly results: LRUCache<string, string>;
  private readonly inFlight = new Map<string, Promise<string>>();

  constructor(
    settings: QueryCacheSettings,
    /** The store's data generation (see GraphStore.dataGeneration). */
    private readonly generation: () => string,
  ) {
    this.results = new LRUCache<string, string>({
      max: settings.maxEntries,
      maxSize: settings.maxBytes,
      sizeCalculation: (json) => Math.max(1, json.length),
    });
  }

  /**
   * The cached JSON of this request at the current generation, else `compute`'s. The generation
   * is read before computing: a write landing meanwhile files the result under the old one.
   */
  async json(
    question: string,
    options: PlainQueryOptions,
    compute: () => Promise<string>,
  ): Promise<CachedJson> {
    const key = `${this.generation()}\u0000${requestKey(question, options)}`;
    const cached = this.results.get(key);
    if (cached !== undefined) return { json: cached, hit: true };
    const running = this.inFlight.get(key);
    if (running) return { json: await running, hit: true };
    const computing = compute();
    this.inFlight.set(key, computing);
    try {
      const json = await computing;
      this.results.set(key, json);
      return { json, hit: false };
    } finally {
      this.inFlight.delete(key);
    }
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
