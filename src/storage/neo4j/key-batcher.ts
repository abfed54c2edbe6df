/**
 * Lookups by key requested in the same turn of the event loop (e.g. a Promise.all over document
 * ids) are answered by one statement for all their keys: on Neo4j each statement is a round trip,
 * and concurrent small reads also queue on the server's few worker threads.
 */
export class KeyBatcher<V> {
  private waiting = new Map<string, Waiter<V>[]>();
  private scheduled = false;

  constructor(private readonly loadAll: (keys: string[]) => Promise<Map<string, V>>) {}

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
      for (const [key, waiters] of batch) for (const waiter of waiters) waiter.resolve(found.get(key));
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
    }
  }
}

interface Waiter<V> {
  resolve: (value: V | undefined) => void;
  reject: (error: unknown) => void;
}
