import type { GraphStore } from "../storage/graph-store.js";
import type { EntityRecord, RelationshipRecord } from "../types.js";
import { isProperName } from "./names.js";

export interface SimilarityTuning {
  enabled: boolean;
  /** Cosine similarity from which a pair is proposed. */
  minScore: number;
  /** Nearest entities looked at per entity. */
  neighbours: number;
}

/** The configured threshold for the workspace's embedder: the hashing embedder has its own scale. */
export function similarityTuning(
  settings: SimilarityTuning & { minScoreHashing: number },
  embedderKind: string,
): SimilarityTuning {
  const { minScoreHashing, ...tuning } = settings;
  return embedderKind === "hashing" ? { ...tuning, minScore: minScoreHashing } : tuning;
}

/** Two entities whose name-and-description vectors are close. */
export interface SimilarPair {
  a: string;
  b: string;
  score: number;
}

/** Entities whose contexts are scored per batch: their vectors and their context's are read at once. */
const QUERY_PAGE = 128;

/**
 * Pairs of proper-named entities whose stored name-and-description vectors (the "entities"
 * namespace, which must be current) are at least `minScore` alike. A pair is only worth proposing
 * with something shared in the graph (resolution leaves it apart otherwise), so each entity is
 * scored against the entities that share a passage or a neighbour with it, its `neighbours`
 * closest kept: a few small sets read from the store per batch and scored here, rather than a
 * vector search per entity (a round trip each on a server) over every entity. Passages and
 * neighbours with more than `maxBlockSize` entities are too common to pair on.
 */
export async function findSimilarPairs(
  store: Pick<GraphStore, "getVectors">,
  entities: EntityRecord[],
  relationships: RelationshipRecord[],
  tuning: SimilarityTuning & { maxBlockSize: number },
): Promise<SimilarPair[]> {
  if (!tuning.enabled || !store.getVectors) return [];
  const contexts = graphContexts(
    entities.filter((e) => isProperName(e.name)),
    relationships,
    tuning.maxBlockSize,
  );
  const keys = [...contexts.keys()].filter((key) => (contexts.get(key)?.size ?? 0) > 0);
  const best = new Map<string, SimilarPair>();
  for (let i = 0; i < keys.length; i += QUERY_PAGE) {
    const page = keys.slice(i, i + QUERY_PAGE);
    const wanted = new Set(page.flatMap((key) => [key, ...contexts.get(key)!]));
    const vectors = unitVectors(await store.getVectors("entities", [...wanted]));
    for (const key of page) {
      const query = vectors.get(key);
      if (!query) continue;
      for (const hit of nearest(query, contexts.get(key)!, vectors, tuning.neighbours)) {
        if (hit.score < tuning.minScore) continue;
        const [a, b] = key < hit.id ? [key, hit.id] : [hit.id, key];
        const id = `${a}\u001f${b}`;
        if ((best.get(id)?.score ?? -1) < hit.score) best.set(id, { a, b, score: hit.score });
      }
    }
  }
  return [...best.values()].sort((x, y) => (x.a < y.a ? -1 : x.a > y.a ? 1 : x.b < y.b ? -1 : 1));
}

/** Vectors scaled to length 1, so a dot product is their cosine. */
function unitVectors(items: { id: string; vector: number[] }[]): Map<string, Float64Array> {
  const out = new Map<string, Float64Array>();
  for (const item of items) {
    const norm = Math.hypot(...item.vector);
    if (norm > 0)
      out.set(
        item.id,
        Float64Array.from(item.vector, (x) => x / norm),
      );
  }
  return out;
}

/** The `count` entities of `candidates` closest to `query`, best first. */
function nearest(
  query: Float64Array,
  candidates: Set<string>,
  vectors: Map<string, Float64Array>,
  count: number,
): { id: string; score: number }[] {
  const scored: { id: string; score: number }[] = [];
  for (const id of candidates) {
    const vector = vectors.get(id);
    if (!vector) continue;
    let dot = 0;
    for (let d = 0; d < query.length; d++) dot += query[d]! * (vector[d] ?? 0);
    scored.push({ id, score: dot });
  }
  return scored.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : 1)).slice(0, count);
}

/** Per entity, the other entities that share a passage or a neighbour with it. */
function graphContexts(
  entities: EntityRecord[],
  relationships: RelationshipRecord[],
  maxBlockSize: number,
): Map<string, Set<string>> {
  const keys = new Set(entities.map((e) => e.key));
  const blocks = new Map<string, string[]>();
  const add = (block: string, key: string) => {
    const members = blocks.get(block);
    if (members) members.push(key);
    else blocks.set(block, [key]);
  };
  for (const e of entities) for (const chunk of e.sourceChunkIds) add(`c\u001f${chunk}`, e.key);
  for (const r of relationships) {
    if (keys.has(r.targetKey)) add(`n\u001f${r.sourceKey}`, r.targetKey);
    if (keys.has(r.sourceKey)) add(`n\u001f${r.targetKey}`, r.sourceKey);
  }
  const contexts = new Map<string, Set<string>>([...keys].map((key) => [key, new Set<string>()]));
  for (const members of blocks.values()) {
    if (members.length < 2 || members.length > maxBlockSize) continue;
    for (const key of members) {
      const context = contexts.get(key)!;
      for (const other of members) if (other !== key) context.add(other);
    }
  }
  return contexts;
}
