import { join } from "node:path";
import Database from "better-sqlite3";
import type { GraphStore } from "../../src/storage/graph-store.js";
import { openSqliteStore, SQLITE_FILE_NAME } from "../../src/storage/sqlite/sqlite-store.js";
import type { CommunityRecord } from "../../src/types.js";
import { stableStringify } from "../../src/util/hash.js";

/**
 * A workspace's graph in a form two runs can be compared with `toEqual`: everything that must not
 * depend on how the graph was reached (clean run, resume after a kill, delete, update), sorted, with
 * no timestamps. Vectors are compared by the hash of the text they embed.
 */
export interface GraphSnapshot {
  documents: { id: string; title: string; contentHash: string; status: string; chunkCount: number }[];
  chunks: { id: string; docId: string; index: number; status: string; text: string }[];
  entities: {
    key: string;
    name: string;
    type: string;
    description: string;
    fragments: string[];
    sourceChunkIds: string[];
    needsSummary: boolean;
  }[];
  relationships: {
    key: string;
    weight: number;
    keywords: string[];
    description: string;
    fragments: string[];
    sourceChunkIds: string[];
    needsSummary: boolean;
  }[];
  /** Every stored mention, one string each: a duplicated mention or fragment shows up here. */
  mentions: string[];
  vectors: Record<"chunks" | "entities" | "relationships", string[]>;
}

export async function graphSnapshot(store: GraphStore): Promise<GraphSnapshot> {
  const chunks = await store.listChunks();
  const states = new Map((await store.getChunkStates()).map((s) => [s.chunkId, s.status]));
  const mentions = await store.getChunkMentions(chunks.map((c) => c.id));
  return {
    documents: (await store.listDocuments())
      .map((d) => ({
        id: d.id,
        title: d.title,
        contentHash: d.contentHash,
        status: d.status,
        chunkCount: d.chunkCount,
      }))
      .sort(byId),
    chunks: chunks
      .map((c) => ({
        id: c.id,
        docId: c.docId,
        index: c.index,
        status: states.get(c.id) ?? "?",
        text: c.text,
      }))
      .sort(byId),
    entities: (await store.listEntities())
      .map((e) => ({
        key: e.key,
        name: e.name,
        type: e.type,
        description: e.description,
        fragments: e.fragments,
        sourceChunkIds: e.sourceChunkIds,
        needsSummary: e.needsSummary,
      }))
      .sort(byKey),
    relationships: (await store.listRelationships())
      .map((r) => ({
        key: r.key,
        weight: r.weight,
        keywords: r.keywords,
        description: r.description,
        fragments: r.fragments,
        sourceChunkIds: r.sourceChunkIds,
        needsSummary: r.needsSummary,
      }))
      .sort(byKey),
    mentions: [...mentions.entities, ...mentions.relationships].map((m) => stableStringify(m)).sort(),
    vectors: {
      chunks: await vectorList(store, "chunks"),
      entities: await vectorList(store, "entities"),
      relationships: await vectorList(store, "relationships"),
    },
  };
}

/** The snapshot of a workspace folder's SQLite store, opened and closed around the read. */
export async function workspaceSnapshot(workspace: string): Promise<GraphSnapshot> {
  const store = await openSqliteStore(workspace);
  try {
    return await graphSnapshot(store);
  } finally {
    await store.close();
  }
}

/** SQLite's own consistency check of the workspace file: "ok" when nothing is corrupt. */
export function integrityCheck(workspace: string): string {
  const db = new Database(join(workspace, SQLITE_FILE_NAME), { readonly: true });
  try {
    const rows = db.pragma("integrity_check") as { integrity_check: string }[];
    return rows.map((r) => r.integrity_check).join("\n");
  } finally {
    db.close();
  }
}

async function vectorList(store: GraphStore, ns: "chunks" | "entities" | "relationships"): Promise<string[]> {
  return [...(await store.vectorHashes(ns))].map(([id, hash]) => `${id} ${hash}`).sort();
}

function byId(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function byKey(a: { key: string }, b: { key: string }): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/**
 * The community hierarchy without reports' text, in a form a clean run and a run that got there
 * another way can be compared with: each community as its level, members, parent's members, content
 * hash and whether its report is current. Ids are left out: a workspace that lived through earlier
 * runs keeps their ids where membership mostly stayed (community/id-continuity.ts), a clean run
 * has hash ids.
 */
export function communityShape(communities: readonly CommunityRecord[]) {
  const membersOf = new Map(communities.map((c) => [c.id, c.entityKeys.join("|")]));
  return communities
    .map((c) => ({
      level: c.level,
      entityKeys: c.entityKeys,
      parent: c.parentId === null ? null : membersOf.get(c.parentId),
      contentHash: c.contentHash,
      reported: c.reportHash === c.contentHash,
    }))
    .sort((a, b) => a.level - b.level || (a.entityKeys.join("|") < b.entityKeys.join("|") ? -1 : 1));
}
