/**
 * Batches handed from one step to another as they are ready (documents from registration to
 * extraction, as each registration transaction commits), read with `for await`. The reader ends
 * when the writer closes the channel, or throws the writer's error when it fails.
 */
export class BatchChannel<T> implements AsyncIterable<T> {
  private readonly waiting: T[] = [];
  private end: { failed: false } | { failed: true; error: unknown } | undefined;
  private wake: (() => void) | undefined;

  push(batch: T): void {
    this.waiting.push(batch);
    this.notify();
  }

  close(): void {
    this.end ??= { failed: false };
    this.notify();
  }

  fail(error: unknown): void {
    this.end ??= { failed: true, error };
    this.notify();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.waiting.length > 0) {
        yield this.waiting.shift() as T;
        continue;
      }
      if (this.end?.failed) throw this.end.error;
      if (this.end) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
