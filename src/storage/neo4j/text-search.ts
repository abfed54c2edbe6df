import type { ScoredId } from "../../types.js";
import { foldToken, queryTerms, segmentForIndex } from "../text/query-terms.js";
import { affordableTerms, RELATIONSHIP_POSTING_BUDGET } from "../text/term-budget.js";
import { Bm25Index, type IndexedText } from "./bm25-index.js";
import type { Neo4jConnection } from "./connection.js";
import type { GenerationCache } from "./generation-cache.js";
import * as search from "./search.js";
import { stemToken } from "./search-terms.js";

/** What unicode61 keeps inside a token: letters, numbers, marks and private-use characters. */
const TOKEN = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
type TextKind = "chunks" | "relationships";

/**
 * Chunk and relationship BM25 ranked exactly as the embedded store ranks them: the workspace's texts
 * are read once per write generation into an in-memory index (bm25-index.ts), tokenised as SQLite's
 * unicode61 tokenizer does (relationships Porter-stemmed, as their searchTerms already are), and
 * queried with the embedded store's query terms, relationship terms under the same postings budget.
 * Lucene's BM25 ordered hits differently, and hybrid and mix lost gold passages on Neo4j that the
 * embedded store found. Single-character CJK phrases (which need token positions) and very large
 * workspaces still go through the Lucene indexes.
 */
export class InMemoryTextSearch {
  constructor(
    private readonly db: Neo4jConnection,
    private readonly cached: GenerationCache,
    private readonly recordCount: (kind: TextKind) => Promise<number>,
    /**
     * Workspaces with more records than this are searched through Lucene instead of in memory
     * (their postings would cost hundreds of megabytes; `neo4j.inMemoryText*`): their rankings
     * then differ from the embedded store's.
     */
    private readonly maxInMemory: Record<TextKind, number>,
  ) {}

  async chunks(query: string, topK: number, allow?: Set<string>): Promise<ScoredId[]> {
    const terms = queryTerms(query);
    if (terms.length === 0 || topK <= 0 || allow?.size === 0) return [];
    if (!(await this.servable("chunks", terms))) return search.searchChunkText(this.db, query, topK, allow);
    const index = await this.index("chunks");
    // This index folds every mark, so words the query keeps apart may meet here: each counts once.
    return index.search([...new Set(terms.map(foldToken))], topK, allow);
  }

  async relationships(query: string, topK: number, allow?: Set<string>): Promise<ScoredId[]> {
    const terms = queryTerms(query);
    if (terms.length === 0 || topK <= 0 || allow?.size === 0) return [];
    if (!(await this.servable("relationships", terms))) {
      return search.searchRelationshipText(this.db, query, topK, allow);
    }
    const index = await this.index("relationships");
    const kept = affordableTerms(
      terms,
      (term) => index.documentFrequency(stemToken(term)),
      RELATIONSHIP_POSTING_BUDGET,
    );
    return index.search([...new Set(kept.map(stemToken))], topK, allow);
  }

  private async servable(kind: TextKind, terms: string[]): Promise<boolean> {
    if (terms.some((term) => term.includes(" "))) return false;
    return (await this.recordCount(kind)) <= this.maxInMemory[kind];
  }

  private index(kind: TextKind): Promise<Bm25Index> {
    return this.cached.get(`bm25:${kind}`, async () => {
      const rows = await this.db.read(
        kind === "chunks" ? "store/chunks-text-all" : "store/relationships-search-terms",
      );
      const normalise = kind === "chunks" ? foldToken : (token: string) => token;
      return new Bm25Index(rows.map((row): IndexedText => indexedText(row, normalise)));
    });
  }
}

function indexedText(row: Record<string, unknown>, normalise: (token: string) => string): IndexedText {
  const tokens = segmentForIndex(String(row.text ?? "")).match(TOKEN) ?? [];
  return { id: String(row.id), tokens: tokens.map(normalise) };
}
