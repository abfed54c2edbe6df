/**
 * A concurrency limit whose waiting calls are served follow-ups first (each kind in arrival order).
 * A follow-up continues a conversation already under way (a chunk's gleaning round, a corrective
 * retry): serving it before new conversations finishes the items a stage has started instead of
 * starting more, so a stage ends on a full last round rather than on a few stragglers, and a
 * chunk's extraction is merged sooner.
 */
export class FollowUpFirstLimit {
  private active = 0;
  private readonly followUps: (() => void)[] = [];
  private readonly fresh: (() => void)[] = [];

  constructor(private readonly concurrency: number) {}

  async run<T>(work: () => Promise<T>, followUp = false): Promise<T> {
    if (this.active < this.concurrency) this.active += 1;
    // A released slot is handed to the next waiter as is: `active` counts it all along.
    else await new Promise<void>((resolve) => (followUp ? this.followUps : this.fresh).push(resolve));
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private release(): void {
    const next = this.followUps.shift() ?? this.fresh.shift();
    if (next) next();
    else this.active -= 1;
  }
}
