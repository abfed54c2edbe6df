/**
 * Values computed once per key and remembered, all forgotten at once when the memo is full, so a
 * long-running process does not keep every key it ever saw.
 */
export class BoundedMemo<K, V> {
  private readonly values = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  /** The remembered value of `key`, or `compute()`'s, remembered while `capacity` (default: the memo's) allows. */
  get(key: K, compute: () => V, capacity = this.capacity): V {
    let value = this.values.get(key);
    if (value === undefined) {
      value = compute();
      if (this.values.size >= capacity) this.values.clear();
      this.values.set(key, value);
    }
    return value;
  }
}
