import { LRUCache } from "lru-cache";

/** How many neighbourhood answers a workspace keeps, and how many bytes they may hold in all. */
export interface NeighbourhoodCacheSettings {
  /** 0 turns the cache off. */
  maxEntries: number;
  maxBytes: number;
}

/** One neighbourhood request, its start resolved to an entity key. */
export interface NeighbourhoodRequest {
  start: string;
  depth: number;
  maxNodes: number;
  maxEdges: number;
}

/** A neighbourhood's JSON and whether it came from the cache. */
export interface CachedNeighbourhood {
  json: Buffer;
  hit: boolean;
}

/**
 * Neighbourhood answers of one workspace as the JSON bytes the route sends, keyed by the store's
 * data generation and the request. Any write to the workspace (a job's process, a curation route,
 * another process) moves the generation, so an answer is only served for the data it was drawn
 * from; older generations' entries are never asked for again and age out. A hub's neighbourhood is
 * hundreds of kilobytes of JSON that took milliseconds of CPU to gather and serialise. Identical
 * requests arriving while one is computed share its work.
 */
export class NeighbourhoodCache {
  private readonly answers: LRUCache<string, Buffer>;
  private readonly inFlight = new Map<string, Promise<Buffer>>();

  constructor(
    settings: NeighbourhoodCacheSettings,
    /** The store's data generation (see GraphStore.dataGeneration). */
    private readonly generation: () => string,
  ) {
    this.answers = new LRUCache<string, Buffer>({
      max: settings.maxEntries,
      maxSize: settings.maxBytes,
      sizeCalculation: (json) => Math.max(1, json.length),
    });
  }

  /**
   * The cached answer to this request at the current generation, else `compute`'s. The generation
   * is read before computing: a write landing meanwhile files the answer under the old one.
   */
  async json(request: NeighbourhoodRequest, compute: () => Promise<Buffer>): Promise<CachedNeighbourhood> {
    const { start, depth, maxNodes, maxEdges } = request;
    const key = [this.generation(), depth, maxNodes, maxEdges, start].join("\u0000");
    const cached = this.answers.get(key);
    if (cached !== undefined) return { json: cached, hit: true };
    const running = this.inFlight.get(key);
    if (running) return { json: await running, hit: true };
    const computing = compute();
    this.inFlight.set(key, computing);
    try {
      const json = await computing;
      this.answers.set(key, json);
      return { json, hit: false };
    } finally {
      this.inFlight.delete(key);
    }
  }

  /** Drops every answer (the server's other cached graph views were forgotten too). */
  clear(): void {
    this.answers.clear();
  }

  get size(): number {
    return this.answers.size;
  }
}
