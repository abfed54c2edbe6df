import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { WarmStart } from "../community/warm-start.js";
import type { KgragConfig } from "../config.js";
import { DESCRIPTION_SEPARATOR } from "../merge/keys.js";
import { warmStartOf } from "../pipeline/create-communities.js";
import { loadGraphView } from "../pipeline/graph-view.js";
import { planRegistration } from "../pipeline/register-documents.js";
import type { GraphEntity, GraphRelationship, GraphStore, GraphView } from "../storage/graph-store.js";
import { sqliteFile } from "../storage/sqlite/sqlite-store.js";
import type { CommunityRecord, SourceDocument } from "../types.js";
import { hashText } from "../util/hash.js";
import { openStore } from "../workspace/store.js";
import { withoutOldVersions } from "./old-versions.js";
import type { StandInGraph } from "./stand-in-graph.js";

/**
 * What a workspace holds already when it has communities: an update re-clusters this graph with
 * the new documents' (warm-started), and writes reports only for the communities that change.
 */
export interface WorkspaceGraph {
  view: GraphView;
  communities: CommunityRecord[];
  /** The warm start the run would re-cluster from; none when off or unusable (fresh, ids still carried over). */
  warmStart?: WarmStart;
}

/**
 * What a dry run reads of the workspace. `read` is false on Neo4j: opening its store sets up the
 * schema (writes) and needs the database, and a dry run writes nothing and needs none, so every
 * document counts as new and existing communities are not seen.
 */
export interface WorkspaceRead {
  read: boolean;
  /** Documents indexed already with the same title and text (metadata changes are written in place): a run skips them. */
  unchanged: string[];
  /** Documents whose content changed: the run removes their old version before extracting them. */
  changed: string[];
  /** Documents seen before with the same content whose indexing did not finish (or failed). */
  resumed: string[];
  /** What earlier runs did of the documents whose indexing did not finish: a run resumes them. */
  earlier: EarlierWork;
  /** With changed documents, their old versions are left out of the graph, as the run removes them. */
  graph?: WorkspaceGraph;
}

/**
 * Chunks of documents whose indexing did not finish that an earlier run took care of: a run
 * re-registers such a document with its chunks' state kept, extracts only the chunks not merged
 * yet, and embeds only the chunks whose vector is missing.
 */
export interface EarlierWork {
  mergedChunks: ReadonlySet<string>;
  embeddedChunks: ReadonlySet<string>;
}

export const NO_EARLIER_WORK: EarlierWork = { mergedChunks: new Set(), embeddedChunks: new Set() };

/**
 * The workspace's state for estimating an update with `documents`: which of them a run would
 * skip, as planRegistration decides (it writes nothing), and its graph and communities. An
 * embedded workspace that does not exist is not created: a dry run writes nothing.
 */
export async function readWorkspace(
  config: KgragConfig,
  documents: SourceDocument[],
): Promise<WorkspaceRead> {
  const nothingRead = { unchanged: [], changed: [], resumed: [], earlier: NO_EARLIER_WORK };
  if (config.storage !== "sqlite") return { read: false, ...nothingRead };
  const dir = resolve(config.workspace);
  if (!existsSync(sqliteFile(dir))) return { read: true, ...nothingRead };
  const store = await openStore(config, dir);
  try {
    const plan = await planRegistration({ store }, documents);
    const graph = await graphOf(store, config, plan.changed);
    return {
      read: true,
      unchanged: [...plan.unchanged, ...plan.metadataUpdated],
      changed: plan.changed,
      resumed: plan.resumed,
      earlier: await earlierWorkOf(store, plan.resumed),
      ...(graph ? { graph } : {}),
    };
  } finally {
    await store.close();
  }
}

/**
 * The workspace's graph and communities, or undefined when it has none to update (no workspace
 * yet, no communities, community reports turned off, or a Neo4j store, which a dry run does not open).
 */
export async function readWorkspaceGraph(config: KgragConfig): Promise<WorkspaceGraph | undefined> {
  return (await readWorkspace(config, [])).graph;
}

async function graphOf(
  store: GraphStore,
  config: KgragConfig,
  changed: string[],
): Promise<WorkspaceGraph | undefined> {
  if (!config.community.enabled) return undefined;
  const communities = await store.listCommunities();
  if (communities.length === 0) return undefined;
  const view = await withoutOldVersions(store, config, await loadGraphView(store), changed);
  const warmStart = await warmStartOf({ store, config }, {}, communities);
  return { view, communities, ...(warmStart ? { warmStart } : {}) };
}

/** The chunks of the resumed documents an earlier run merged, and those whose vector it stored. */
async function earlierWorkOf(store: GraphStore, resumed: string[]): Promise<EarlierWork> {
  if (resumed.length === 0) return NO_EARLIER_WORK;
  const states = (await Promise.all(resumed.map((docId) => store.getChunkStates(docId)))).flat();
  const chunks = await store.getChunks(states.map((state) => state.chunkId));
  const vectors = await store.vectorHashes("chunks");
  return {
    mergedChunks: new Set(states.filter((state) => state.status === "merged").map((state) => state.chunkId)),
    // The run re-embeds a chunk whose stored vector is of another text (syncNamespace).
    embeddedChunks: new Set(chunks.filter((c) => vectors.get(c.id) === hashText(c.text)).map((c) => c.id)),
  };
}

/**
 * The workspace's graph after merging the stand-in graph of the new documents: their new records
 * added, and the records they mention again given a longer description (a merge appends the new
 * fragments, so the communities holding them get another content hash) and the added weight.
 */
export function withStandIn(view: GraphView, standIn: StandInGraph): GraphView {
  return {
    entities: merged(view.entities, standIn.entities, (old, added) => ({
      ...old,
      description: appended(old.description, added.description),
    })),
    relationships: merged(view.relationships, standIn.relationships, (old, added) => ({
      ...old,
      description: appended(old.description, added.description),
      weight: old.weight + added.weight,
    })),
  };
}

function merged<T extends GraphEntity | GraphRelationship>(
  existing: readonly T[],
  added: readonly T[],
  merge: (old: T, added: T) => T,
): T[] {
  const byKey = new Map(existing.map((record) => [record.key, record]));
  for (const record of added) {
    const old = byKey.get(record.key);
    byKey.set(record.key, old ? merge(old, record) : record);
  }
  return [...byKey.values()];
}

function appended(description: string, added: string): string {
  return description ? `${description}${DESCRIPTION_SEPARATOR}${added}` : added;
}
