import type { ChunkPartial, EntityMention, GraphChanges, RelationshipMention } from "../../types.js";
import { int, type Neo4jConnection, type WriteTransaction } from "./connection.js";
import { asNumber, asStrings } from "./read-rows.js";
import {
  entityMentionRows,
  entityRow,
  historyRows,
  relationshipMentionRows,
  relationshipRow,
} from "./write-rows.js";

export interface ChunkMentions {
  entities: EntityMention[];
  relationships: RelationshipMention[];
}

export interface ChunkMerge {
  chunkId: string;
  mentions: ChunkMentions;
  partial?: ChunkPartial;
}

/**
 * Atomic: the chunks' mentions (replacing earlier ones), the graph changes folded from them, and
 * their 'merged' mark, in one transaction. A crash leaves all of it or none of it.
 */
export async function commitChunkMerges(
  db: Neo4jConnection,
  merges: ChunkMerge[],
  changes: GraphChanges,
): Promise<void> {
  for (const merge of merges) assertMentionsOf(merge.chunkId, merge.mentions);
  const chunkIds = merges.map((m) => m.chunkId);
  const entityRows = merges.flatMap((m) => entityMentionRows(m.mentions.entities));
  const relationshipRows = merges.flatMap((m) => relationshipMentionRows(m.mentions.relationships));
  await db.write(async (tx) => {
    if (merges.length > 0) {
      const first = await nextSequence(tx, "merge", merges.length);
      const rows = merges.map((merge, i) => ({
        id: merge.chunkId,
        mergeSeq: int(first + i),
        status: merge.partial ? "partial" : "merged",
        error: merge.partial?.error ?? null,
        rawOutput: merge.partial?.rawOutput ?? null,
      }));
      const marked = new Set(
        (await tx.runBatched("store/chunks-mark-merged", rows)).map((r) => String(r.id)),
      );
      const missing = chunkIds.filter((id) => !marked.has(id));
      if (missing.length > 0) {
        throw new Error(`Cannot merge unknown chunk "${missing[0]}": store its document's chunks first.`);
      }
    }
    const [cleared] = await tx.run("store/mentions-clear-chunks", { chunkIds });
    const previouslyMentioned = asStrings(cleared?.entityKeys ?? [], "entity keys");
    await tx.runBatched("store/entity-mentions-create", entityRows);
    await tx.runBatched("store/relation-mentions-create", relationshipRows);
    await applyChanges(tx, changes);
    if (previouslyMentioned.length > 0)
      await tx.run("store/entity-anchors-prune", { keys: previouslyMentioned });
  });
}

/** Atomic: changes not tied to one chunk (summaries, rebuilds after a delete). */
export async function applyGraphChanges(db: Neo4jConnection, changes: GraphChanges): Promise<void> {
  await applyGraphChangeSets(db, [changes]);
}

/**
 * Several change sets in one transaction, with the effect of applying them one after another:
 * consecutive sets are folded into one (their upserts and history concatenated, a later upsert of
 * a key winning), and a set with deletes starts a new fold, since a fold runs its deletes first.
 */
export async function applyGraphChangeSets(db: Neo4jConnection, sets: GraphChanges[]): Promise<void> {
  if (sets.length === 0) return;
  await db.write(async (tx) => {
    for (const folded of foldChangeSets(sets)) await applyChanges(tx, folded);
  });
}

export function foldChangeSets(sets: GraphChanges[]): GraphChanges[] {
  const folds: GraphChanges[] = [];
  for (const set of sets) {
    const last = folds.at(-1);
    const deletes = set.deleteEntityKeys.length + set.deleteRelationshipKeys.length > 0;
    if (!last || deletes) {
      folds.push({ ...set });
      continue;
    }
    last.upsertEntities = [...last.upsertEntities, ...set.upsertEntities];
    last.upsertRelationships = [...last.upsertRelationships, ...set.upsertRelationships];
    last.history = [...last.history, ...set.history];
  }
  return folds;
}

/** Deletes first, so a rebuild may delete and re-create the same key in one change set. */
async function applyChanges(tx: WriteTransaction, changes: GraphChanges): Promise<void> {
  const upsertRelationships = changes.upsertRelationships.map(relationshipRow);
  const upsertEntities = changes.upsertEntities.map(entityRow);
  let endpoints: string[] = [];
  if (changes.deleteRelationshipKeys.length > 0) {
    const [deleted] = await tx.run("store/relationships-delete", { keys: changes.deleteRelationshipKeys });
    endpoints = asStrings(deleted?.endpointKeys ?? [], "endpoint keys");
  }
  if (changes.deleteEntityKeys.length > 0) {
    await tx.run("store/entities-delete", { keys: changes.deleteEntityKeys });
  }
  await tx.runBatched("store/entities-upsert", upsertEntities);
  await tx.runBatched("store/relationships-upsert", upsertRelationships);
  if (endpoints.length > 0) await tx.run("store/entity-anchors-prune", { keys: endpoints });
  if (changes.history.length > 0) {
    const first = await nextSequence(tx, "history", changes.history.length);
    await tx.runBatched("store/history-append", historyRows(changes.history, first));
  }
}

/** Reserves `count` numbers of a per-workspace counter; concurrent writers wait on its lock. */
async function nextSequence(tx: WriteTransaction, name: string, count: number): Promise<number> {
  const [row] = await tx.run("store/counter-next", { name, count: int(count) });
  return asNumber(row?.first, `${name} sequence`);
}

function assertMentionsOf(chunkId: string, mentions: ChunkMentions): void {
  for (const mention of [...mentions.entities, ...mentions.relationships]) {
    if (mention.chunkId !== chunkId) {
      throw new Error(`A mention of chunk "${mention.chunkId}" was passed with chunk "${chunkId}".`);
    }
  }
}
