import type { ScoredId, VectorNamespace } from "../../types.js";
import { int, type Neo4jConnection } from "./connection.js";
import { asNumber, asScored, asScoredList } from "./read-rows.js";
import type { PlainRecord } from "./record-mapping.js";
import type { VectorIndexes } from "./schema-setup.js";
import { stemmedTerms } from "./search-terms.js";
import type { VectorStatsCache } from "./vector-stats.js";
import { norm } from "./vectors.js";

/**
 * Vector and full-text search. Neo4j's indexes span every workspace of the database, so hits are
 * filtered by workspace (and allow list) after the index: the search over-fetches and asks again
 * for more while fewer than topK survive and the index had more to give. Very small namespaces
 * and small allow lists skip the index and rank exactly by brute-force cosine in Cypher.
 */

/**
 * Up to this many allowed ids are ranked exactly rather than through the index when they are a
 * small share of the namespace: reading them costs less than over-fetching the index past
 * everything the allow list leaves out.
 */
export const EXACT_LIMIT = 2000;
/**
 * An allow list holding more than 1/INDEX_SHARE of the namespace goes through the index: the first
 * over-fetch (4x topK) all but always finds enough allowed hits, and reading a thousand allowed
 * vectors for exact cosine costs far more.
 */
const INDEX_SHARE = 4;
/** Allow lists this short are always ranked exactly, whatever their share. */
export const SMALL_ALLOW_LIST = 256;
/** Namespaces are counted up to this size: enough to tell an allow list's share of them. */
export const COUNT_LIMIT = EXACT_LIMIT * INDEX_SHARE + 1;
/**
 * Namespaces up to this size are ranked exactly; beyond it the HNSW index answers. Exact cosine
 * reads every vector of the namespace, but the index is shared by every workspace of the database,
 * and where several hold the same vectors (a migrated copy beside a native index) its approximate
 * neighbours differed between them; exact ranking keeps small workspaces deterministic.
 */
export const SMALL_NAMESPACE = 2000;
/**
 * Past this many index hits, an allow-filtered vector search switches to exact ranking and a
 * full-text search stops reading.
 */
const MAX_INDEX_FETCH = 20_000;
const FIRST_FETCH_FACTOR = 4;
const GROWTH = 4;

export async function searchVectors(
  db: Neo4jConnection,
  indexes: VectorIndexes,
  stats: VectorStatsCache,
  ns: VectorNamespace,
  query: number[],
  topK: number,
  allow?: Set<string>,
): Promise<ScoredId[]> {
  if (topK <= 0 || allow?.size === 0) return [];
  const { count, dimension: dim } = await stats.get(ns);
  if (dim === undefined) return [];
  if (query.length !== dim) {
    throw new Error(
      `Query vector has ${query.length} dimensions but the "${ns}" vectors have ${dim}: ` +
        "embed the query with the workspace's embedding model.",
    );
  }
  if (norm(query) === 0) return [];
  const exact = (ids: string[] | null) => exactSearch(db, ns, query, topK, ids);
  const allowed = allow ? [...allow] : null;
  if (count <= SMALL_NAMESPACE || (allowed && allowedIsNarrow(allowed.length, count))) return exact(allowed);
  if (!(await indexes.serves(ns, dim))) return exact(allowed);
  const { hits, exhausted } = await overFetch(topK, MAX_INDEX_FETCH, (fetch) =>
    db.read(`store/vectors/${ns}/ann`, { fetch: int(fetch), query, allow: allowed, topK: int(topK) }),
  );
  // Still short after the largest fetch: the index is crowded with other workspaces' vectors.
  if (hits.length < topK && !exhausted) return exact(allowed);
  return hits.map(cosineFromNeo4j);
}

/** Few enough allowed ids, and a small enough share of the namespace, to rank exactly. */
function allowedIsNarrow(allowed: number, count: number): boolean {
  return allowed <= SMALL_ALLOW_LIST || (allowed <= EXACT_LIMIT && allowed * INDEX_SHARE <= count);
}

async function exactSearch(
  db: Neo4jConnection,
  ns: VectorNamespace,
  query: number[],
  topK: number,
  ids: string[] | null,
): Promise<ScoredId[]> {
  const rows = ids
    ? await db.read(`store/vectors/${ns}/exact-allowed`, { ids, query, topK: int(topK) })
    : await db.read(`store/vectors/${ns}/exact-all`, { query, topK: int(topK) });
  return asScored(rows).map(cosineFromNeo4j);
}

/** Neo4j reports cosine similarity rescaled to [0, 1] as (1 + cos) / 2; kgrag scores are plain cosine. */
export function cosineFromNeo4j(hit: ScoredId): ScoredId {
  return { id: hit.id, score: 2 * hit.score - 1 };
}

/** BM25 over chunk text; the index is Lucene's with the CJK analyzer. */
export function searchChunkText(
  db: Neo4jConnection,
  text: string,
  topK: number,
  allow?: Set<string>,
): Promise<ScoredId[]> {
  return allowFilteredTextSearch(db, "store/fulltext-chunks", text, topK, allow);
}

/** Entity keys by BM25 over name and aliases (weighted 5x, as in the embedded store) and description. */
export async function searchEntityText(db: Neo4jConnection, text: string, topK: number): Promise<ScoredId[]> {
  const terms = luceneQuery(text);
  if (terms === null || topK <= 0) return [];
  const query = `name:(${terms})^5 OR aliases:(${terms})^5 OR description:(${terms})`;
  const { hits } = await overFetch(topK, Number.POSITIVE_INFINITY, (fetch) =>
    db.read("store/fulltext-entities", { query, fetch: int(fetch), topK: int(topK) }),
  );
  return hits;
}

/**
 * Relationship keys by BM25 over their searchTerms (see search-terms.ts), allow-filtered. The
 * question is stemmed like the indexed terms; its stop words go before stemming changes them.
 */
export function searchRelationshipText(
  db: Neo4jConnection,
  text: string,
  topK: number,
  allow?: Set<string>,
): Promise<ScoredId[]> {
  return allowFilteredTextSearch(db, "store/fulltext-relationships", text, topK, allow, stemmedTerms);
}

/**
 * A full-text statement taking {query, fetch, allow, topK}: hits of this workspace within `allow`.
 * The index is read at most MAX_INDEX_FETCH hits deep, so a narrow scope over a large shared index
 * costs a bounded read (its hits ranked deeper are not returned).
 */
async function allowFilteredTextSearch(
  db: Neo4jConnection,
  statement: string,
  text: string,
  topK: number,
  allow?: Set<string>,
  normalise?: (word: string) => string,
): Promise<ScoredId[]> {
  const query = luceneQuery(text, normalise);
  if (query === null || topK <= 0 || allow?.size === 0) return [];
  const allowed = allow ? [...allow] : null;
  const { hits } = await overFetch(topK, MAX_INDEX_FETCH, (fetch) =>
    db.read(statement, { query, fetch: int(fetch), allow: allowed, topK: int(topK) }),
  );
  return hits;
}

/**
 * Runs a statement returning {fetched, matches} with a growing fetch size until topK matches
 * survive the filter or the index has no more hits (`exhausted`), or the cap is reached.
 */
export async function overFetch(
  topK: number,
  cap: number,
  run: (fetch: number) => Promise<PlainRecord[]>,
): Promise<{ hits: ScoredId[]; exhausted: boolean }> {
  let fetch = Math.max(topK * FIRST_FETCH_FACTOR, 50);
  for (;;) {
    const [row] = await run(fetch);
    const hits = asScoredList(row?.matches ?? []);
    const exhausted = asNumber(row?.fetched ?? 0, "fetched hits") < fetch;
    if (hits.length >= topK || exhausted || fetch >= cap) return { hits, exhausted };
    fetch = Math.min(fetch * GROWTH, cap);
  }
}

const LUCENE_SPECIAL = /[+\-&|!(){}[\]^"~*?:\\/]/g;
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
const WORDLIKE = /[\p{L}\p{N}]/u;
/**
 * Terms kept from one query. Lucene refuses a query of more than 1,024 clauses (TooManyClauses),
 * and the entity search uses each term twice (name and description).
 */
export const MAX_QUERY_TERMS = 256;
/** Lucene's English stop words, which the CJK analyzer drops: a query of only these matches nothing. */
const STOP_WORDS = new Set(
  "a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with".split(
    " ",
  ),
);

/**
 * The user's words as a Lucene query that never fails to parse: special characters escaped,
 * lower-cased (so AND/OR/NOT are words), CJK runs cut into the overlapping bigrams the CJK analyzer
 * indexes, and all terms OR-ed, so any of them can match. `normalise` turns each remaining word
 * into the form the index holds (e.g. stemmed). Null when nothing searchable is left.
 */
export function luceneQuery(text: string, normalise?: (word: string) => string): string | null {
  const terms: string[] = [];
  for (const word of text.toLowerCase().split(/\s+/)) {
    for (const run of word.match(CJK_RUN) ?? []) terms.push(...bigrams(run));
    const rest = word.replace(CJK_RUN, " ").trim();
    for (const part of rest.split(" ")) {
      if (!WORDLIKE.test(part) || STOP_WORDS.has(part)) continue;
      const term = normalise ? normalise(part) : part;
      if (WORDLIKE.test(term)) terms.push(term.replace(LUCENE_SPECIAL, "\\$&"));
    }
  }
  const unique = [...new Set(terms)].slice(0, MAX_QUERY_TERMS);
  return unique.length > 0 ? unique.join(" OR ") : null;
}

function bigrams(run: string): string[] {
  const chars = [...run];
  if (chars.length === 1) return chars;
  return chars.slice(1).map((char, i) => `${chars[i]}${char}`);
}
