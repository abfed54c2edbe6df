/**
 * Lookups by key requested in the same turn of the event loop (e.g. a Promise.all over document
 * ids) are answered by one statement for all their keys: on Neo4j each statement is a round trip,
 * and concurrent small reads also queue on the server's few worker threads.
 */
export class KeyBatcher<V> {
  private waiting = new Map<string, Waiter<V>[]>();
  private scheduled = false;

  constructor(
    private readonly loadAll: (keys: string[]) => Promise<Map<string, V>>,
    /**
     * Given, every caller after the first that asked for the same key gets its own copy, so one
     * caller's changes to a record never reach another.
     */
    private readonly copy?: (value: V) => V,
  ) {}

  get(key: string): Promise<V | undefined> {
    return new Promise<V | undefined>((resolve, reject) => {
      const waiters = this.waiting.get(key) ?? [];
      waiters.push({ resolve, reject });
      this.waiting.set(key, waiters);
      if (!this.scheduled) {
        this.scheduled = true;
        queueMicrotask(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = new Map();
    this.scheduled = false;
    try {
      const found = await this.loadAll([...batch.keys()]);
      for (const [key, waiters] of batch) {
        const value = found.get(key);
        for (const [i, waiter] of waiters.entries()) {
          waiter.resolve(i > 0 && value !== undefined && this.copy ? this.copy(value) : value);
        }
      }
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
    }
  }
}

interface Waiter<V> {
  resolve: (value: V | undefined) => void;
  reject: (error: unknown) => void;
}
