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
import { openStore } from "../workspace/store.js";
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
  graph?: WorkspaceGraph;
}

/**
 * The workspace's state for estimating an update with `documents`: which of them a run would
 * skip, as planRegistration decides (it writes nothing), and its graph and communities. An
 * embedded workspace that does not exist is not created: a dry run writes nothing.
 */
export async function readWorkspace(
  config: KgragConfig,
  documents: SourceDocument[],
): Promise<WorkspaceRead> {
  if (config.storage !== "sqlite") return { read: false, unchanged: [] };
  const dir = resolve(config.workspace);
  if (!existsSync(sqliteFile(dir))) return { read: true, unchanged: [] };
  const store = await openStore(config, dir);
  try {
    const plan = await planRegistration({ store }, documents);
    const graph = await graphOf(store, config);
    return {
      read: true,
      unchanged: [...plan.unchanged, ...plan.metadataUpdated],
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

async function graphOf(store: GraphStore, config: KgragConfig): Promise<WorkspaceGraph | undefined> {
  if (!config.community.enabled) return undefined;
  const communities = await store.listCommunities();
  if (communities.length === 0) return undefined;
  const view = await loadGraphView(store);
  const warmStart = await warmStartOf({ store, config }, {}, communities);
  return { view, communities, ...(warmStart ? { warmStart } : {}) };
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
