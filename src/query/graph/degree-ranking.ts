import type { RelationshipRecord, ScoredId } from "../../types.js";
import { interleave } from "../fusion.js";
import { type ExpansionLimits, type GraphHits, type Seeds, topScores } from "./graph-expansion.js";
import type { QueryGraph } from "./query-graph.js";

/**
 * LightRAG's ranking, kept as the baseline PageRank is measured against: the seeds' own
 * relationships (or the matched ones, in global mode) ordered by the endpoints' combined degree and
 * then weight; chunks are the seeds' and those relationships' source chunks in that order. It never
 * looks past one hop.
 */
export async function rankByDegree(
  graph: QueryGraph,
  seeds: Seeds,
  limits: ExpansionLimits,
): Promise<GraphHits> {
  const entityHits = topScores(allowed(graph, seeds.entities), limits.topK);
  const candidates = seeds.relationships.length
    ? await graph.relationships(seeds.relationships.map((s) => s.id))
    : await graph.relationshipsOf(entityHits.map((e) => e.id));
  const ranked = await byDegreeThenWeight(graph, candidates);
  const relationships = ranked.slice(0, limits.topK);

  const entities = seeds.relationships.length ? endpointsOf(relationships) : entityHits;
  const entityRecords = await graph.entities(entities.map((e) => e.id));
  const chunkOrder = interleave([
    rankedChunks(entityRecords.map((e) => graph.chunkIdsOf(e))),
    rankedChunks(relationships.map((r) => graph.chunkIdsOf(r.record))),
  ]);
  return {
    entities,
    relationships: relationships.map((r) => ({ id: r.record.key, score: r.score })),
    chunks: chunkOrder.slice(0, limits.chunkTopK),
  };
}

interface RankedRelationship {
  record: RelationshipRecord;
  score: number;
}

async function byDegreeThenWeight(
  graph: QueryGraph,
  rels: RelationshipRecord[],
): Promise<RankedRelationship[]> {
  const ends = [...new Set(rels.flatMap((r) => [r.sourceKey, r.targetKey]))];
  const degree = ends.length ? await graph.store.degrees(ends) : new Map<string, number>();
  return rels
    .map((record) => ({
      record,
      score: (degree.get(record.sourceKey) ?? 0) + (degree.get(record.targetKey) ?? 0),
    }))
    .sort((a, b) => b.score - a.score || b.record.weight - a.record.weight);
}

function allowed(graph: QueryGraph, weights: Map<string, number>): Map<string, number> {
  return new Map([...weights].filter(([key]) => graph.entityAllowed(key)));
}

/** Endpoints in the order their relationships rank, scored by that rank. */
function endpointsOf(rels: RankedRelationship[]): ScoredId[] {
  const keys = [...new Set(rels.flatMap((r) => [r.record.sourceKey, r.record.targetKey]))];
  return keys.map((id, i) => ({ id, score: 1 / (i + 1) }));
}

/** Chunk ids in first-seen order over the groups, scored by that order. */
function rankedChunks(groups: string[][]): ScoredId[] {
  const ids = [...new Set(groups.flat())];
  return ids.map((id, i) => ({ id, score: 1 / (i + 1) }));
}
