import type { Resolution } from "../resolve/resolution.js";
import { resolvedReads, resolveMentions } from "../resolve/resolved-reads.js";
import type { GraphStore } from "../storage/graph-store.js";
import type {
  ChunkPartial,
  EntityMention,
  EntityRecord,
  GraphChanges,
  HistoryEntry,
  RelationshipMention,
  RelationshipRecord,
} from "../types.js";
import { groupBy } from "../util/group-by.js";
import { stableStringify } from "../util/hash.js";
import type { ChunkMentions, FoldOptions } from "./fold.js";
import { foldEntity, foldRelationship } from "./fold.js";
import { splitRelationshipKey } from "./keys.js";

/** The store reads a merge plan needs; plans never write, the caller applies them. */
export type MergeReadStore = Pick<
  GraphStore,
  "getEntities" | "getRelationships" | "getEntityMentions" | "getRelationshipMentions" | "getChunkMentions"
>;

export interface PlanOptions extends FoldOptions {
  /** Clock for history entries; injectable so tests can compare plans. */
  now?: () => string;
  /** Merges and edits (entity resolution, curation) applied on top of the mentions; none when absent. */
  resolution?: Resolution;
}

/** One chunk's extraction, ready to merge. */
export interface ChunkMerge {
  chunkId: string;
  mentions: ChunkMentions;
  /** Set when the extraction was cut short: the chunk is marked partial and extracted again later. */
  partial?: ChunkPartial;
}

/**
 * What merging one chunk's mentions changes: every touched entity and relationship is re-folded
 * from all its stored mentions plus the new ones. A re-merge of the same chunk replaces its old
 * mentions rather than adding to them, so a retried chunk is never counted twice (the store's
 * commitChunkMerge must likewise replace the chunk's stored mentions).
 */
export async function planChunkMerge(
  store: MergeReadStore,
  chunkId: string,
  mentions: ChunkMentions,
  opts: PlanOptions,
): Promise<GraphChanges> {
  return planChunkMerges(store, [{ chunkId, mentions }], opts);
}

/**
 * The same for a batch of chunks at once. A popular entity is then re-folded and rewritten once
 * per batch instead of once per chunk, which keeps large corpora from going quadratic.
 */
export async function planChunkMerges(
  storedReads: MergeReadStore,
  extracted: ChunkMerge[],
  opts: PlanOptions,
): Promise<GraphChanges> {
  const { resolution } = opts;
  const store = resolution ? resolvedReads(storedReads, resolution) : storedReads;
  const merges = resolution
    ? extracted.map((m) => ({ ...m, mentions: resolveMentions(resolution, m.mentions) }))
    : extracted;
  const batchIds = new Set(merges.map((m) => m.chunkId));
  // Keys these chunks mentioned in an earlier merge are re-folded too, in case they mention them no more.
  const earlier = await store.getChunkMentions([...batchIds]);
  const fresh = {
    entities: merges.flatMap((m) => m.mentions.entities),
    relationships: merges.flatMap((m) => m.mentions.relationships),
  };
  const entityKeys = unique([...fresh.entities, ...earlier.entities].map((m) => m.entityKey));
  const relationshipKeys = unique([
    ...[...fresh.relationships, ...earlier.relationships].map((m) => m.relationshipKey),
    ...(resolution?.manualRelationshipKeysOf(entityKeys) ?? []),
  ]);
  const notThisBatch = (m: { chunkId: string }) => !batchIds.has(m.chunkId);
  const stored = await readRefoldInput(store, entityKeys, relationshipKeys);
  const entityMentions = [...stored.entityMentions.filter(notThisBatch), ...fresh.entities];
  const relationshipMentions = [...stored.relationshipMentions.filter(notThisBatch), ...fresh.relationships];
  const causeByKey = new Map<string, string[]>();
  for (const m of [
    ...fresh.entities,
    ...fresh.relationships,
    ...earlier.entities,
    ...earlier.relationships,
  ]) {
    const key = "entityKey" in m ? m.entityKey : m.relationshipKey;
    const ids = causeByKey.get(key) ?? [];
    if (!ids.includes(m.chunkId)) ids.push(m.chunkId);
    causeByKey.set(key, ids);
  }
  return refold(
    { ...stored, entityKeys, relationshipKeys, entityMentions, relationshipMentions },
    opts,
    (key) => `merge chunk ${(causeByKey.get(key) ?? [...batchIds]).join(", ")}`,
  );
}

/**
 * After mentions were deleted: re-folds the affected keys from the mentions that remain; keys left
 * with none are deleted. Needs no extraction, only the stored mentions.
 */
export async function planRebuild(
  storedReads: MergeReadStore,
  entityKeys: string[],
  relationshipKeys: string[],
  cause: string,
  opts: PlanOptions,
): Promise<GraphChanges> {
  const store = opts.resolution ? resolvedReads(storedReads, opts.resolution) : storedReads;
  const entities = unique(entityKeys);
  const relationships = unique([
    ...relationshipKeys,
    ...(opts.resolution?.manualRelationshipKeysOf(entities) ?? []),
  ]);
  const stored = await readRefoldInput(store, entities, relationships);
  return refold({ ...stored, entityKeys: entities, relationshipKeys: relationships }, opts, cause);
}

/** What a re-fold reads: the keys' stored mentions and records. */
interface StoredForRefold {
  entityMentions: EntityMention[];
  relationshipMentions: RelationshipMention[];
  existingEntities: EntityRecord[];
  existingRelationships: RelationshipRecord[];
  /** Relationship ends outside the re-folded entities that exist in the store. */
  storedEnds: Set<string>;
}

interface RefoldInput extends StoredForRefold {
  entityKeys: string[];
  relationshipKeys: string[];
}

/**
 * The four reads do not depend on each other, so they are asked for together: on a server store
 * (Neo4j) they then cost about one round trip instead of four, one after another.
 */
async function readRefoldInput(
  store: MergeReadStore,
  entityKeys: string[],
  relationshipKeys: string[],
): Promise<StoredForRefold> {
  const refolded = new Set(entityKeys);
  const otherEnds = unique(relationshipKeys.flatMap(splitRelationshipKey)).filter(
    (key) => !refolded.has(key),
  );
  const [entityMentions, relationshipMentions, existingEntities, existingRelationships, ends] =
    await Promise.all([
      store.getEntityMentions(entityKeys),
      store.getRelationshipMentions(relationshipKeys),
      store.getEntities(entityKeys),
      store.getRelationships(relationshipKeys),
      otherEnds.length > 0 ? store.getEntities(otherEnds) : Promise.resolve([]),
    ]);
  const storedEnds = new Set(ends.map((e) => e.key));
  return { entityMentions, relationshipMentions, existingEntities, existingRelationships, storedEnds };
}

/** Why each key changed: one cause for all, or one per key. */
type Cause = string | ((key: string) => string);

function refold(input: RefoldInput, opts: PlanOptions, cause: Cause): GraphChanges {
  const causeOf = typeof cause === "string" ? () => cause : cause;
  const at = (opts.now ?? (() => new Date().toISOString()))();
  const changes: GraphChanges = {
    upsertEntities: [],
    upsertRelationships: [],
    deleteEntityKeys: [],
    deleteRelationshipKeys: [],
    history: [],
  };
  const existingEntities = byKey(input.existingEntities);
  const entityMentions = groupBy(input.entityMentions, (m) => m.entityKey);
  const refoldedEntities = new Map<string, boolean>();
  for (const key of input.entityKeys) {
    const previous = existingEntities.get(key);
    const own = entityMentions.get(key) ?? [];
    const folded = foldEntity(key, own, opts, previous);
    const next = opts.resolution ? opts.resolution.finishEntity(key, folded, own) : folded;
    refoldedEntities.set(key, next !== null);
    const entry = recordChange(changes.upsertEntities, changes.deleteEntityKeys, key, previous, next);
    if (entry) changes.history.push({ kind: "entity", key, ...entry, cause: causeOf(key), at });
  }
  const entityExists = (key: string) => refoldedEntities.get(key) ?? input.storedEnds.has(key);
  const existingRelationships = byKey(input.existingRelationships);
  const relationshipMentions = groupBy(input.relationshipMentions, (m) => m.relationshipKey);
  for (const key of input.relationshipKeys) {
    const previous = existingRelationships.get(key);
    const folded = foldRelationship(key, relationshipMentions.get(key) ?? [], opts, previous);
    const finished = opts.resolution ? opts.resolution.finishRelationship(folded) : folded;
    // A relationship added by hand outlives its extracted mentions; it must not outlive its ends.
    const next = finished && [finished.sourceKey, finished.targetKey].every(entityExists) ? finished : null;
    const entry = recordChange(
      changes.upsertRelationships,
      changes.deleteRelationshipKeys,
      key,
      previous,
      next,
    );
    if (entry) changes.history.push({ kind: "relationship", key, ...entry, cause: causeOf(key), at });
  }
  return changes;
}

type HistoryDiff = Pick<HistoryEntry, "action" | "oldDescription" | "newDescription">;

/** Adds the upsert or delete for one key and returns its history entry; nothing when unchanged. */
function recordChange<T extends EntityRecord | RelationshipRecord>(
  upserts: T[],
  deletes: string[],
  key: string,
  previous: T | undefined,
  next: T | null,
): HistoryDiff | null {
  if (!next) {
    if (!previous) return null;
    deletes.push(key);
    return { action: "delete", oldDescription: previous.description, newDescription: null };
  }
  if (previous && sameRecord(previous, next)) return null;
  upserts.push(next);
  return {
    action: previous ? "update" : "create",
    oldDescription: previous?.description ?? null,
    newDescription: next.description,
  };
}

/**
 * Deep equality. Hub records hold thousands of fragments, so the cheap fields that nearly always
 * differ after a merge (fragment hash, chunk count) are compared before serialising both records.
 */
function sameRecord<T extends EntityRecord | RelationshipRecord>(a: T, b: T): boolean {
  if (a.fragmentsHash !== b.fragmentsHash || a.sourceChunkIds.length !== b.sourceChunkIds.length)
    return false;
  return stableStringify(a) === stableStringify(b);
}

function byKey<T extends { key: string }>(records: T[]): Map<string, T> {
  return new Map(records.map((record) => [record.key, record]));
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
