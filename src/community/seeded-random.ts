import { createHash } from "node:crypto";

/**
 * mulberry32: a tiny, fast PRNG with a 32-bit state. Clustering and report shuffling must be
 * reproducible run to run, which Math.random cannot give.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes a numeric seed with a text label, so independent sub-problems get independent streams. */
export function deriveSeed(seed: number, label: string): number {
  const digest = createHash("sha256").update(`${seed}\u0000${label}`).digest();
  return digest.readUInt32LE(0);
}

/** Fisher-Yates shuffle into a new array, driven by the given PRNG. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
