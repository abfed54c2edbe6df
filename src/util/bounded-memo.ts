/**
 * Values computed once per key and remembered, all forgotten at once when the memo is full, so a
 * long-running process does not keep every key it ever saw. Full means `capacity` entries, or, with
 * a `weigh`, keys weighing `capacity` in all (e.g. characters of text keys).
 */
export class BoundedMemo<K, V> {
  private readonly values = new Map<K, V>();
  private used = 0;

  constructor(
    private readonly capacity: number,
    private readonly weigh: (key: K) => number = () => 1,
  ) {}

  /** The remembered value of `key`, or `compute()`'s, remembered while `capacity` (default: the memo's) allows. */
  get(key: K, compute: () => V, capacity = this.capacity): V {
    let value = this.values.get(key);
    if (value === undefined) {
      value = compute();
      const weight = this.weigh(key);
      if (this.used + weight > capacity) {
        this.values.clear();
        this.used = 0;
      }
      this.values.set(key, value);
      this.used += weight;
    }
    return value;
  }
}
