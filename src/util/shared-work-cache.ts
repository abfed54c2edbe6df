import { LRUCache } from "lru-cache";

/** What a cache lookup gave, and whether it came from the cache (or work already under way). */
export interface CacheLookup<V> {
  value: V;
  hit: boolean;
}

/** The serialised answers a cache holds: their length counts against `maxBytes`. */
type Sized = { length: number };

/**
 * A bounded LRU of serialised answers in which identical requests arriving while one is being
 * computed share its work instead of computing it again.
 */
export class SharedWorkCache<V extends Sized> {
  private readonly values: LRUCache<string, V>;
  private readonly inFlight = new Map<string, Promise<V>>();

  constructor(settings: { maxEntries: number; maxBytes: number }) {
    this.values = new LRUCache<string, V>({
      max: settings.maxEntries,
      maxSize: settings.maxBytes,
      sizeCalculation: (value) => Math.max(1, value.length),
    });
  }

  /** The kept value of this key, else the running computation's, else `compute`'s (then kept). */
  async get(key: string, compute: () => Promise<V>): Promise<CacheLookup<V>> {
    const cached = this.values.get(key);
    if (cached !== undefined) return { value: cached, hit: true };
    const running = this.inFlight.get(key);
    if (running) return { value: await running, hit: true };
    const computing = compute();
    this.inFlight.set(key, computing);
    try {
      const value = await computing;
      this.values.set(key, value);
      return { value, hit: false };
    } finally {
      this.inFlight.delete(key);
    }
  }

  clear(): void {
    this.values.clear();
  }

  get size(): number {
    return this.values.size;
  }
}
