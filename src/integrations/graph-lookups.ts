import { withNamedCitations } from "../community/report-citations.js";
import { readableDescription } from "../merge/description-text.js";
import { entityKey, splitRelationshipKey } from "../merge/keys.js";
import { documentTitles, withPages } from "../query/context/references.js";
import type { Reference } from "../query/result.js";
import type { GraphStore } from "../storage/graph-store.js";
import type { CommunityRecord, EntityRecord, RelationshipRecord } from "../types.js";

/**
 * Read-only lookups of the graph for agents (MCP tools, LangChain tools): plain JSON-ready shapes,
 * descriptions joined, no embeddings. Each takes the store so any workspace backend serves them.
 */

export interface EntitySummary {
  name: string;
  type: string;
  description: string;
  /** Chunks that mention it: how much the corpus says about it. */
  mentions: number;
}

/** A passage as a reference (with its page in a PDF) and its text. */
export interface Passage extends Reference {
  text: string;
}

export interface RelationshipSummary {
  source: string;
  target: string;
  description: string;
  keywords: string[];
  weight: number;
}

export interface EntityDetail extends EntitySummary {
  relationships: RelationshipSummary[];
  passages: Passage[];
}

export interface Neighbourhood {
  center: string;
  depth: number;
  entities: EntitySummary[];
  relationships: RelationshipSummary[];
}

export interface CommunitySummary {
  id: string;
  level: number;
  parent: string | null;
  size: number;
  title: string | null;
  summary: string | null;
  rating: number | null;
}

/** Entities whose name or description matches, best first. */
export async function searchEntities(
  store: GraphStore,
  text: string,
  limit: number,
): Promise<EntitySummary[]> {
  const exact = await store.getEntities([entityKey(text)]);
  const hits = await store.searchEntityText(text, limit);
  const found = await store.getEntities(hits.map((h) => h.id));
  const byKey = new Map(found.map((e) => [e.key, e]));
  const ranked = hits.map((h) => byKey.get(h.id)).filter((e): e is EntityRecord => e !== undefined);
  const merged = [...exact, ...ranked.filter((e) => !exact.some((x) => x.key === e.key))];
  return merged.slice(0, limit).map(entitySummary);
}

/** One entity by name (exact key first, else the best text match), with its relationships and passages. */
export async function getEntity(
  store: GraphStore,
  name: string,
  limits: { passages: number; relationships: number },
): Promise<EntityDetail | null> {
  const entity = await findEntity(store, name);
  if (!entity) return null;
  const relationships = (await store.relationshipsOf([entity.key]))
    .sort((a, b) => b.weight - a.weight)
    .slice(0, limits.relationships);
  const names = await entityNames(store, relationships);
  return {
    ...entitySummary(entity),
    relationships: relationships.map((r) => relationshipSummary(r, names)),
    passages: await passagesOf(store, entity.sourceChunkIds.slice(0, limits.passages)),
  };
}

/** Entities and relationships within `depth` hops, strongest edges first, at most `limit` entities. */
export async function neighbourhood(
  store: GraphStore,
  name: string,
  depth: number,
  limit: number,
): Promise<Neighbourhood | null> {
  const center = await findEntity(store, name);
  if (!center) return null;
  const seen = new Set([center.key]);
  const edges = new Map<string, RelationshipRecord>();
  let frontier = [center.key];
  for (let hop = 0; hop < depth && frontier.length > 0 && seen.size < limit; hop += 1) {
    const next: string[] = [];
    const strongestFirst = (await store.relationshipsOf(frontier)).sort((a, b) => b.weight - a.weight);
    for (const rel of strongestFirst) {
      const fresh = [rel.sourceKey, rel.targetKey].filter((k) => !seen.has(k));
      if (seen.size + fresh.length > limit) continue;
      edges.set(rel.key, rel);
      for (const key of fresh) {
        seen.add(key);
        next.push(key);
      }
    }
    frontier = next;
  }
  const entities = await store.getEntities([...seen]);
  const names = new Map(entities.map((e) => [e.key, e.name]));
  return {
    center: center.name,
    depth,
    entities: entities.map(entitySummary),
    relationships: [...edges.values()]
      .filter((r) => seen.has(r.sourceKey) && seen.has(r.targetKey))
      .map((r) => relationshipSummary(r, names)),
  };
}

/** The community hierarchy with report titles and summaries, optionally of one level. */
export async function listCommunities(store: GraphStore, level?: number): Promise<CommunitySummary[]> {
  return (await store.listCommunities())
    .filter((c) => level === undefined || c.level === level)
    .map(communitySummary);
}

/** Chunks as numbered passages, with their document titles. */
export async function passagesOf(store: GraphStore, chunkIds: string[]): Promise<Passage[]> {
  const chunks = await store.getChunks(chunkIds);
  const order = new Map(chunkIds.map((id, i) => [id, i]));
  chunks.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  const titles = await documentTitles(
    store,
    chunks.map((c) => c.docId),
  );
  const passages = chunks.map((c, i) => ({
    n: i + 1,
    docId: c.docId,
    title: titles.get(c.docId) ?? c.docId,
    chunkId: c.id,
    start: c.start,
    end: c.end,
    text: c.text,
  }));
  return withPages(store, passages);
}

async function findEntity(store: GraphStore, name: string): Promise<EntityRecord | undefined> {
  const [exact] = await store.getEntities([entityKey(name)]);
  if (exact) return exact;
  const [best] = await store.searchEntityText(name, 1);
  return best ? (await store.getEntities([best.id]))[0] : undefined;
}

async function entityNames(
  store: GraphStore,
  relationships: RelationshipRecord[],
): Promise<Map<string, string>> {
  const keys = [...new Set(relationships.flatMap((r) => [r.sourceKey, r.targetKey]))];
  return new Map((await store.getEntities(keys)).map((e) => [e.key, e.name]));
}

function entitySummary(entity: EntityRecord): EntitySummary {
  return {
    name: entity.name,
    type: entity.type,
    description: readableDescription(entity.description),
    mentions: entity.sourceChunkIds.length,
  };
}

function relationshipSummary(rel: RelationshipRecord, names: Map<string, string>): RelationshipSummary {
  const [source, target] = splitRelationshipKey(rel.key);
  return {
    source: names.get(source) ?? source,
    target: names.get(target) ?? target,
    description: readableDescription(rel.description),
    keywords: rel.keywords,
    weight: rel.weight,
  };
}

function communitySummary(c: CommunityRecord): CommunitySummary {
  return {
    id: c.id,
    level: c.level,
    parent: c.parentId,
    size: c.entityKeys.length,
    title: c.report?.title ?? null,
    // The summary's [E:n]/[R:n] markers mean nothing without the report's reference list.
    summary: c.report ? withNamedCitations(c.report.summary, c.report.markdown) : null,
    rating: c.report?.rating ?? null,
  };
}
