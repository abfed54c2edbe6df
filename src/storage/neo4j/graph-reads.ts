import type {
  EntityMention,
  EntityRecord,
  GraphCounts,
  RelationshipMention,
  RelationshipRecord,
} from "../../types.js";
import type { DescribedEdge } from "../graph-store.js";
import { int, type Neo4jConnection } from "./connection.js";
import type { ChunkMentions } from "./graph-writes.js";
import {
  asDescribedEdges,
  asEntities,
  asEntityMentions,
  asNumber,
  asRelationshipMentions,
  asRelationships,
} from "./read-rows.js";

/** Mentions (provenance) and folded entities/relationships, as the query modes read them. */

export async function getEntityMentions(db: Neo4jConnection, keys: string[]): Promise<EntityMention[]> {
  if (keys.length === 0) return [];
  return asEntityMentions(await db.read("store/entity-mentions-of-entities", { keys }));
}

export async function getRelationshipMentions(
  db: Neo4jConnection,
  keys: string[],
): Promise<RelationshipMention[]> {
  if (keys.length === 0) return [];
  return asRelationshipMentions(await db.read("store/relation-mentions-of-relationships", { keys }));
}

export async function getChunkMentions(db: Neo4jConnection, chunkIds: string[]): Promise<ChunkMentions> {
  if (chunkIds.length === 0) return { entities: [], relationships: [] };
  const [entities, relationships] = await Promise.all([
    db.read("store/entity-mentions-of-chunks", { chunkIds }),
    db.read("store/relation-mentions-of-chunks", { chunkIds }),
  ]);
  return { entities: asEntityMentions(entities), relationships: asRelationshipMentions(relationships) };
}

export async function getEntities(db: Neo4jConnection, keys: string[]): Promise<EntityRecord[]> {
  if (keys.length === 0) return [];
  return asEntities(await db.read("store/entities-get", { keys }));
}

export async function listEntities(db: Neo4jConnection, needingSummary = false): Promise<EntityRecord[]> {
  return asEntities(await db.read("store/entities-list", { needingSummary }));
}

export async function getRelationships(db: Neo4jConnection, keys: string[]): Promise<RelationshipRecord[]> {
  if (keys.length === 0) return [];
  return asRelationships(await db.read("store/relationships-get", { keys }));
}

export async function listRelationships(
  db: Neo4jConnection,
  needingSummary = false,
): Promise<RelationshipRecord[]> {
  return asRelationships(await db.read("store/relationships-list", { needingSummary }));
}

export async function relationshipsOf(
  db: Neo4jConnection,
  entityKeys: string[],
): Promise<RelationshipRecord[]> {
  if (entityKeys.length === 0) return [];
  return asRelationships(await db.read("store/relationships-touching", { keys: entityKeys }));
}

/** One hop of a neighbourhood walk: new neighbours of the frontier, strongest relationship first. */
export async function neighboursOf(
  db: Neo4jConnection,
  frontier: string[],
  known: string[],
  limit: number,
): Promise<string[]> {
  if (frontier.length === 0 || limit <= 0) return [];
  const rows = await db.read("store/entity-neighbours", { frontier, known, limit: int(limit) });
  return rows.map((r) => String(r.key));
}

/** The relationships with both endpoints among the keys, strongest first, without fragments and provenance. */
export async function relationshipsAmong(
  db: Neo4jConnection,
  entityKeys: string[],
  limit: number,
): Promise<DescribedEdge[]> {
  if (entityKeys.length === 0 || limit <= 0) return [];
  return asDescribedEdges(
    await db.read("store/relationships-among", { keys: entityKeys, limit: int(limit) }),
  );
}

/** Relationship count of every entity that has any; the others have degree 0. */
export async function allDegrees(db: Neo4jConnection): Promise<Map<string, number>> {
  const rows = await db.read("store/entity-degrees-all");
  return new Map(rows.map((r) => [String(r.key), asNumber(r.degree, "degree")]));
}

export async function unfinishedDocumentCount(db: Neo4jConnection): Promise<number> {
  const [row] = await db.read("store/documents-unfinished-count");
  return asNumber(row?.unfinished, "unfinished documents");
}

export async function counts(db: Neo4jConnection): Promise<GraphCounts> {
  const [row] = await db.read("store/counts");
  const field = (name: keyof GraphCounts) => asNumber(row?.[name], `${name} count`);
  return {
    documents: field("documents"),
    chunks: field("chunks"),
    entities: field("entities"),
    relationships: field("relationships"),
    communities: field("communities"),
    failedDocuments: field("failedDocuments"),
    failedChunks: field("failedChunks"),
    partialChunks: field("partialChunks"),
  };
}
