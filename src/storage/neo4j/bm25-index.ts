import type { ScoredId } from "../../types.js";

/** FTS5's bm25 constants (fts5_aux.c), which the embedded store ranks with. */
const K1 = 1.2;
const B = 0.75;
/** FTS5 gives a term found in more than half the rows this IDF instead of a negative one. */
const MIN_IDF = 1e-6;

interface Postings {
  docs: Int32Array;
  frequencies: Int32Array;
}

/** One indexed text: its owner's id and its tokens as the index holds them (normalised). */
export interface IndexedText {
  id: string;
  tokens: string[];
}

/**
 * An inverted index in memory that ranks OR-queries with FTS5's bm25 to the formula: each query
 * term adds, in query order, idf x tf(k1 + 1) / (tf + k1(1 - b + b x length / average length)),
 * idf = ln((N - n + 0.5) / (n + 0.5)) (1e-6 when that is not positive), a term repeated in the
 * query counting again. Lucene's BM25 (the Neo4j full-text indexes) takes idf = ln(1 + ...),
 * approximates lengths in one byte and drops stop words, so its rankings differed from the
 * embedded store's; with this one both stores rank alike.
 */
export class Bm25Index {
  private readonly ids: string[];
  private readonly lengths: Int32Array;
  private readonly averageLength: number;
  private readonly postings = new Map<string, Postings>();

  constructor(texts: IndexedText[]) {
    this.ids = texts.map((t) => t.id);
    this.lengths = Int32Array.from(texts, (t) => t.tokens.length);
    const total = this.lengths.reduce((sum, n) => sum + n, 0);
    this.averageLength = texts.length > 0 ? total / texts.length : 0;
    const building = new Map<string, { docs: number[]; frequencies: number[] }>();
    texts.forEach((text, doc) => {
      const counts = new Map<string, number>();
      for (const token of text.tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
      for (const [token, n] of counts) {
        let list = building.get(token);
        if (!list) {
          list = { docs: [], frequencies: [] };
          building.set(token, list);
        }
        list.docs.push(doc);
        list.frequencies.push(n);
      }
    });
    for (const [token, list] of building) {
      this.postings.set(token, {
        docs: Int32Array.from(list.docs),
        frequencies: Int32Array.from(list.frequencies),
      });
    }
  }

  get size(): number {
    return this.ids.length;
  }

  /** Texts holding the term. */
  documentFrequency(term: string): number {
    return this.postings.get(term)?.docs.length ?? 0;
  }

  /**
   * The best `topK` texts matching any of the terms (normalised as the index's tokens), best first,
   * ties by id; `allow` restricts the candidates before ranking.
   */
  search(terms: string[], topK: number, allow?: Set<string>): ScoredId[] {
    if (topK <= 0 || this.ids.length === 0) return [];
    const scores = new Map<number, number>();
    for (const term of terms) {
      const postings = this.postings.get(term);
      if (!postings) continue;
      const idf = inverseDocumentFrequency(this.ids.length, postings.docs.length);
      for (let i = 0; i < postings.docs.length; i++) {
        const doc = postings.docs[i] as number;
        if (allow && !allow.has(this.ids[doc] as string)) continue;
        const tf = postings.frequencies[i] as number;
        const norm = 1 - B + (B * (this.lengths[doc] as number)) / this.averageLength;
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (K1 + 1)) / (tf + K1 * norm));
      }
    }
    return [...scores]
      .map(([doc, score]) => ({ id: this.ids[doc] as string, score }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, topK);
  }
}

function inverseDocumentFrequency(rows: number, hits: number): number {
  const idf = Math.log((rows - hits + 0.5) / (hits + 0.5));
  return idf > 0 ? idf : MIN_IDF;
}
