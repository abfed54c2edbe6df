import type { VectorNamespace } from "../../types.js";

/**
 * Whether a namespace needs the server's vector index. Searches rank a namespace in this process
 * while it fits in memory (vector-memory.ts) and only larger ones on the server, so only they need
 * the index; keeping its HNSW graph up to date is most of what writing vectors costs the server
 * (HotpotQA-100's 12,778 entity vectors were indexed for searches that never read the index). A
 * namespace that outgrows memory gets its index at its next write; an index that exists is kept.
 *
 * The size is read from the server at a namespace's first write and counted up by what this store
 * writes (an upper bound: a write may replace stored vectors), and read again only when that bound
 * no longer fits, so an index run does not count the namespace per write.
 */
export class VectorIndexNeed {
  private readonly sizeBound = new Map<VectorNamespace, number>();

  constructor(
    /** Whether a namespace of this many vectors of this dimension is ranked in memory. */
    private readonly fitsInMemory: (vectors: number, dimension: number) => boolean,
    /** The namespace's size on the server: the larger of its records and its stored vectors. */
    private readonly storedSize: (ns: VectorNamespace, dimension: number) => Promise<number>,
  ) {}

  /** After `written` vectors of `dimension` were stored in `ns`: must it have a vector index? */
  async afterWrite(ns: VectorNamespace, dimension: number, written: number): Promise<boolean> {
    const known = this.sizeBound.get(ns);
    if (known !== undefined && this.fitsInMemory(known + written, dimension)) {
      this.sizeBound.set(ns, known + written);
      return false;
    }
    const size = await this.storedSize(ns, dimension);
    if (!this.fitsInMemory(size, dimension)) return true;
    this.sizeBound.set(ns, size);
    return false;
  }

  /** The workspace was emptied or replaced: sizes are read again. */
  forget(): void {
    this.sizeBound.clear();
  }
}
