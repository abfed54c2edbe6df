/**
 * A value per ordinal (see GraphEdge.ordinals) for one pass, forgotten all at once by starting the
 * next pass: arrays indexed by small numbers instead of maps keyed by text, and no clearing between
 * passes. A pass must run synchronously (the instances are shared).
 */
export class OrdinalMarks {
  private passes = new Int32Array(0);
  private values = new Int32Array(0);
  private pass = 0;

  /** Forgets every value. */
  startPass(): void {
    this.pass += 1;
    if (this.pass === 0x7fffffff) {
      this.passes.fill(0);
      this.pass = 1;
    }
  }

  /** The value given to the ordinal in this pass, or -1. */
  get(ordinal: number): number {
    return this.passes[ordinal] === this.pass ? (this.values[ordinal] as number) : -1;
  }

  set(ordinal: number, value: number): void {
    if (ordinal >= this.passes.length) this.grow(ordinal);
    this.passes[ordinal] = this.pass;
    this.values[ordinal] = value;
  }

  private grow(ordinal: number): void {
    const size = Math.max(1024, ordinal + 1, this.passes.length * 2);
    const passes = new Int32Array(size);
    passes.set(this.passes);
    const values = new Int32Array(size);
    values.set(this.values);
    this.passes = passes;
    this.values = values;
  }
}
