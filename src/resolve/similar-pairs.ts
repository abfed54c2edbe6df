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

/** Entity vectors read per call: a whole large graph's vectors are never held at once. */
const VECTOR_PAGE = 512;

/**
 * Pairs of proper-named entities whose stored name-and-description vectors (the "entities"
 * namespace, which must be current) are at least `minScore` alike. A pair is only worth proposing
 * with something shared in the graph (resolution leaves it apart otherwise), so each entity is
 * searched among the entities that share a passage or a neighbour with it: the store's vector
 * search restricted to that set, which stays small, instead of every entity against every other.
 * Passages and neighbours with more than `maxBlockSize` entities are too common to pair on.
 */
export async function findSimilarPairs(
  store: Pick<GraphStore, "getVectors" | "searchVectors">,
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
  for (let i = 0; i < keys.length; i += VECTOR_PAGE) {
    const items = await store.getVectors("entities", keys.slice(i, i + VECTOR_PAGE));
    for (const item of items) {
      const allow = contexts.get(item.id)!;
      const hits = await store.searchVectors("entities", item.vector, tuning.neighbours, allow);
      for (const hit of hits) {
        if (hit.id === item.id || hit.score < tuning.minScore) continue;
        const [a, b] = item.id < hit.id ? [item.id, hit.id] : [hit.id, item.id];
        const id = `${a}\u001f${b}`;
        if ((best.get(id)?.score ?? -1) < hit.score) best.set(id, { a, b, score: hit.score });
      }
    }
  }
  return [...best.values()].sort((x, y) => (x.a < y.a ? -1 : x.a > y.a ? 1 : x.b < y.b ? -1 : 1));
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
