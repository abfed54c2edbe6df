import type { GenerationCache } from "./generation-cache.js";

/** Past this many remembered keys a memo starts over, so memory stays bounded on huge graphs. */
const MAX_KEYS = 100_000;

/**
 * Per-key reads remembered for the current write generation (see generation-cache.ts): queries ask
 * for the same entities and the edges of the same hubs again and again, and reading a hub's
 * hundreds of relationship records cost more than the rest of a query. Only keys not asked for
 * since the workspace last changed are read. Callers get copies (unless told they only read), so
 * nothing they change leaks into the memo. A process busy writing (indexing) reads straight through.
 */
export class GenerationMemo<T> {
  constructor(
    private readonly cached: GenerationCache,
    private readonly name: string,
    private readonly load: (keys: string[]) => Promise<Map<string, T>>,
    /** False where callers only read (a hub's hundreds of edges are not worth copying per query). */
    private readonly copies = true,
  ) {}

  /** Each key's value (undefined where the store has none). */
  async get(keys: string[]): Promise<Map<string, T | undefined>> {
    if (this.cached.writingNow()) return this.load([...new Set(keys)]);
    const memo = await this.cached.get(this.name, async () => new Map<string, T | undefined>());
    const missing = [...new Set(keys)].filter((key) => !memo.has(key));
    if (missing.length > 0) {
      const found = await this.load(missing);
      if (memo.size + missing.length > MAX_KEYS) memo.clear();
      for (const key of missing) memo.set(key, found.get(key));
    }
    const copy = this.copies ? structuredClone : <V>(value: V) => value;
    return new Map(keys.map((key) => [key, copy(memo.get(key))]));
  }
}
