import { seededRandom } from "../../src/community/seeded-random.js";

/**
 * Seeded dense vectors with cluster structure, as real embeddings have (documents on one topic
 * sit together): points are a cluster centre plus Gaussian noise, so nearest neighbours are
 * meaningful and recall against exact search measures something. Queries come from the same
 * distribution. Shared by bench/scale.ts and the vector index tests.
 */
export class ClusteredVectors {
  private random: () => number;
  private readonly centres: Float32Array[];

  /** `seed` fixes the cluster centres; `streamSeed` (default `seed`) the points drawn around them. */
  constructor(
    readonly dim: number,
    clusters: number,
    seed: number,
    streamSeed = seed,
    private readonly spread = 0.6,
  ) {
    this.random = seededRandom(seed);
    this.centres = Array.from({ length: clusters }, () => this.gaussianVector());
    this.random = seededRandom(streamSeed);
  }

  /** The next point: a random centre plus noise, unit length. */
  next(random = this.random): Float32Array {
    const centre = this.centres[Math.floor(random() * this.centres.length)] as Float32Array;
    const point = new Float32Array(this.dim);
    let squares = 0;
    for (let i = 0; i < this.dim; i++) {
      const value = (centre[i] as number) + this.gaussian(random) * this.spread;
      point[i] = value;
      squares += value * value;
    }
    const scale = 1 / Math.sqrt(squares);
    for (let i = 0; i < this.dim; i++) point[i] = (point[i] as number) * scale;
    return point;
  }

  /** A point of the same distribution that depends only on `seed` (e.g. a query text's hash). */
  pointFor(seed: number): Float32Array {
    return this.next(seededRandom(seed));
  }

  private gaussianVector(): Float32Array {
    return Float32Array.from({ length: this.dim }, () => this.gaussian());
  }

  /** Box-Muller. */
  private gaussian(random = this.random): number {
    const u = random() || Number.MIN_VALUE;
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  }
}

/** Share of the exact top-k that the approximate top-k found. */
export function recallAt(exact: string[], approximate: string[]): number {
  if (exact.length === 0) return 1;
  const found = new Set(approximate);
  return exact.filter((id) => found.has(id)).length / exact.length;
}
