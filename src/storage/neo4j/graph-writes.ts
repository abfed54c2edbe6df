import type { ChunkPartial, EntityMention, GraphChanges, RelationshipMention } from "../../types.js";
import { allSettledOrFirstError, int, type Neo4jConnection, type WriteTransaction } from "./connection.js";
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
 * Once the counters are read, the statements are sent together and the server runs them in order
 * (see sendChanges); only the pruning of anchors waits for what the earlier ones return.
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
  const changeRows = prepareChanges(changes);
  await db.write(async (tx) => {
    const firstMerge = merges.length > 0 ? await nextSequence(tx, "merge", merges.length) : 0;
    const firstHistory = await reserveHistory(tx, changeRows);
    const rows = merges.map((merge, i) => ({
      id: merge.chunkId,
      mergeSeq: int(firstMerge + i),
      status: merge.partial ? "partial" : "merged",
      error: merge.partial?.error ?? null,
      rawOutput: merge.partial?.rawOutput ?? null,
    }));
    const marking = tx.runBatched("store/chunks-mark-merged", rows);
    const clearing = tx.run("store/mentions-clear-chunks", { chunkIds });
    const mentions = [
      tx.runBatched("store/entity-mentions-create", entityRows),
      tx.runBatched("store/relation-mentions-create", relationshipRows),
    ];
    // Endpoints as records, so the statements' answers are awaited together.
    const changing = sendChanges(tx, changeRows, firstHistory).then((keys) => [{ keys }]);
    const [marked, cleared, , , endpoints] = await allSettledOrFirstError([
      marking,
      clearing,
      ...mentions,
      changing,
    ]);
    const found = new Set((marked ?? []).map((r) => String(r.id)));
    const missing = chunkIds.filter((id) => !found.has(id));
    if (missing.length > 0) {
      throw new Error(`Cannot merge unknown chunk "${missing[0]}": store its document's chunks first.`);
    }
    const previouslyMentioned = asStrings(cleared?.[0]?.entityKeys ?? [], "entity keys");
    await pruneAnchors(tx, [
      ...previouslyMentioned,
      ...asStrings(endpoints?.[0]?.keys ?? [], "endpoint keys"),
    ]);
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
    for (const folded of foldChangeSets(sets).map(prepareChanges)) {
      const firstHistory = await reserveHistory(tx, folded);
      await pruneAnchors(tx, await sendChanges(tx, folded, firstHistory));
    }
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

/** A change set as statement rows, checked (canonical keys...) before any statement is sent. */
interface PreparedChanges {
  upsertEntities: ReturnType<typeof entityRow>[];
  upsertRelationships: ReturnType<typeof relationshipRow>[];
  deleteEntityKeys: string[];
  deleteRelationshipKeys: string[];
  history: GraphChanges["history"];
}

function prepareChanges(changes: GraphChanges): PreparedChanges {
  return {
    upsertEntities: changes.upsertEntities.map(entityRow),
    upsertRelationships: changes.upsertRelationships.map(relationshipRow),
    deleteEntityKeys: changes.deleteEntityKeys,
    deleteRelationshipKeys: changes.deleteRelationshipKeys,
    history: changes.history,
  };
}

/**
 * Sends a change set's statements without waiting between them (the server runs them in the
 * order sent): deletes first, so a rebuild may delete and re-create the same key in one change set,
 * then the upserts and the history (numbered from `firstHistory`). Resolves to the endpoints of
 * deleted relationships, whose anchors may now be orphans.
 */
async function sendChanges(
  tx: WriteTransaction,
  changes: PreparedChanges,
  firstHistory: number,
): Promise<string[]> {
  const deleting =
    changes.deleteRelationshipKeys.length > 0
      ? tx.run("store/relationships-delete", { keys: changes.deleteRelationshipKeys })
      : Promise.resolve([]);
  const sent = [deleting];
  if (changes.deleteEntityKeys.length > 0) {
    sent.push(tx.run("store/entities-delete", { keys: changes.deleteEntityKeys }));
  }
  sent.push(tx.runBatched("store/entities-upsert", changes.upsertEntities));
  sent.push(tx.runBatched("store/relationships-upsert", changes.upsertRelationships));
  if (changes.history.length > 0) {
    const pages = historyRows(changes.history, firstHistory, tx.tuning.historyPageEntries);
    sent.push(tx.runBatched("store/history-append", pages));
  }
  const [deleted] = await allSettledOrFirstError(sent);
  return asStrings(deleted?.[0]?.endpointKeys ?? [], "endpoint keys");
}

/** Numbers for the change set's history entries, reserved before its statements are sent. */
async function reserveHistory(tx: WriteTransaction, changes: PreparedChanges): Promise<number> {
  return changes.history.length > 0 ? nextSequence(tx, "history", changes.history.length) : 0;
}

/** Deletes the anchors among these entities that no longer hold anything. */
async function pruneAnchors(tx: WriteTransaction, keys: string[]): Promise<void> {
  const unique = [...new Set(keys)];
  if (unique.length > 0) await tx.run("store/entity-anchors-prune", { keys: unique });
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
