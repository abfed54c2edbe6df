import { LRUCache } from "lru-cache";
import { untilAborted } from "./until-aborted.js";

/** What a cache lookup gave, and whether it came from the cache (or work already under way). */
export interface CacheLookup<V> {
  value: V;
  hit: boolean;
}

/** The serialised answers a cache holds: their length counts against `maxBytes`. */
type Sized = { length: number };

/** A computation under way, and how many callers still wait for it. */
interface Running<V> {
  value: Promise<V>;
  controller: AbortController;
  callers: number;
}

/**
 * A bounded LRU of serialised answers in which identical requests arriving while one is being
 * computed share its work instead of computing it again. A caller may leave (its signal aborts):
 * it stops waiting at once, and the shared work is cancelled only once every caller of it left.
 */
export class SharedWorkCache<V extends Sized> {
  private readonly values: LRUCache<string, V>;
  private readonly inFlight = new Map<string, Running<V>>();

  constructor(settings: { maxEntries: number; maxBytes: number }) {
    this.values = new LRUCache<string, V>({
      max: settings.maxEntries,
      maxSize: settings.maxBytes,
      sizeCalculation: (value) => Math.max(1, value.length),
    });
  }

  /**
   * The kept value of this key, else the running computation's, else `compute`'s (then kept).
   * `compute` gets a signal that aborts when every caller waiting for it has left.
   */
  async get(
    key: string,
    compute: (signal: AbortSignal) => Promise<V>,
    signal?: AbortSignal,
  ): Promise<CacheLookup<V>> {
    const cached = this.values.get(key);
    if (cached !== undefined) return { value: cached, hit: true };
    const joined = this.inFlight.get(key);
    const running = joined ?? this.start(key, compute);
    return { value: await this.wait(key, running, signal), hit: joined !== undefined };
  }

  clear(): void {
    this.values.clear();
  }

  get size(): number {
    return this.values.size;
  }

  private start(key: string, compute: (signal: AbortSignal) => Promise<V>): Running<V> {
    const controller = new AbortController();
    const running: Running<V> = { value: compute(controller.signal), controller, callers: 0 };
    this.inFlight.set(key, running);
    // Kept before any caller hears the value, so a lookup right after finds it; a failure keeps nothing.
    void running.value
      .then(
        (value) => {
          this.values.set(key, value);
        },
        () => {},
      )
      .finally(() => this.forget(key, running));
    return running;
  }

  /** The running computation's value for one caller, who stops waiting when its signal aborts. */
  private wait(key: string, running: Running<V>, signal: AbortSignal | undefined): Promise<V> {
    running.callers += 1;
    if (!signal) return running.value;
    const leave = () => {
      running.callers -= 1;
      if (running.callers > 0) return;
      running.controller.abort(signal.reason);
      // A request arriving from now on computes afresh rather than join work being cancelled.
      this.forget(key, running);
    };
    if (signal.aborted) leave();
    else signal.addEventListener("abort", leave, { once: true });
    const waiting = untilAborted(running.value, signal);
    void waiting.then(
      () => signal.removeEventListener("abort", leave),
      () => signal.removeEventListener("abort", leave),
    );
    return waiting;
  }

  private forget(key: string, running: Running<V>): void {
    if (this.inFlight.get(key) === running) this.inFlight.delete(key);
  }
}
