/**
 * Write requests that arrive while a transaction runs are applied together in the next one, in
 * the order they came. On Neo4j every commit costs a round trip and a log flush, and concurrent
 * transactions of one workspace queue on the same locks (the history counter, hub entities): the
 * summarize stage, for one, applies hundreds of small change sets at once. Each caller's promise
 * settles when the transaction holding its request commits. When a shared transaction fails, its
 * requests are retried one by one, so one bad request fails alone.
 */
export class CoalescingWriter<T> {
  private pending: Request<T>[] = [];
  private draining = false;

  constructor(
    private readonly applyInOneTransaction: (items: T[]) => Promise<void>,
    private readonly maxPerTransaction: number,
  ) {}

  submit(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, this.maxPerTransaction);
        await this.applyBatch(batch);
      }
    } finally {
      this.draining = false;
    }
  }

  private async applyBatch(batch: Request<T>[]): Promise<void> {
    try {
      await this.applyInOneTransaction(batch.map((r) => r.item));
      for (const request of batch) request.resolve();
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
      for (const request of batch) await this.applyBatch([request]);
    }
  }
}

interface Request<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}
