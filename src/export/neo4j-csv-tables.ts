import type { EntityRecord } from "../types.js";
import type { Cell } from "./csv-format.js";
import type { GraphSnapshot } from "./graph-snapshot.js";

/**
 * The CSV tables of kgrag's graph model, one per node label and relationship type. Each column is
 * its neo4j-admin header (`name:type`, `:ID(space)`, `:START_ID(space)`...) next to the value it
 * takes, so headers and rows cannot drift apart.
 */

export interface CsvTable {
  name: string;
  kind: "nodes" | "relationships";
  header: string[];
  rows: Cell[][];
}

type Column<T> = [header: string, value: (item: T, index: number) => Cell];

function table<T>(name: string, kind: CsvTable["kind"], items: T[], columns: Column<T>[]): CsvTable {
  return {
    name,
    kind,
    header: columns.map(([header]) => header),
    rows: items.map((item, i) => columns.map(([, value]) => value(item, i))),
  };
}

export function nodeTables(snapshot: GraphSnapshot, workspace: string): CsvTable[] {
  const ws: Column<unknown> = ["workspace", () => workspace];
  const state = new Map(snapshot.chunkStates.map((s) => [s.chunkId, s]));
  const known = new Set(snapshot.entities.map((e) => e.key));
  // Mentioned entities without a record become anchor nodes, as in the live store.
  const anchors = [...new Set(snapshot.entityMentions.map((m) => m.entityKey))].filter((k) => !known.has(k));
  const entityRows: (Partial<EntityRecord> & { key: string; anchor?: true })[] = [
    ...snapshot.entities,
    ...anchors.map((key) => ({ key, anchor: true as const })),
  ];
  return [
    table("nodes_documents.csv", "nodes", snapshot.documents, [
      ["id:ID(Document)", (d) => d.id],
      ws,
      ["title", (d) => d.title],
      ["path", (d) => d.path],
      ["contentHash", (d) => d.contentHash],
      ["status", (d) => d.status],
      ["error", (d) => d.error],
      ["metadataJson", (d) => JSON.stringify(d.metadata)],
      ["chunkCount:int", (d) => d.chunkCount],
      ["createdAt", (d) => d.createdAt],
      ["updatedAt", (d) => d.updatedAt],
      [":LABEL", () => "Document"],
    ]),
    table("nodes_chunks.csv", "nodes", snapshot.chunks, [
      ["id:ID(Chunk)", (c) => c.id],
      ws,
      ["docId", (c) => c.docId],
      ["index:int", (c) => c.index],
      ["text", (c) => c.text],
      ["tokens:int", (c) => c.tokens],
      ["start:int", (c) => c.start],
      ["end:int", (c) => c.end],
      ["status", (c) => state.get(c.id)?.status ?? "pending"],
      ["error", (c) => state.get(c.id)?.error ?? null],
      ["rawOutput", (c) => state.get(c.id)?.rawOutput ?? null],
      [":LABEL", () => "Chunk"],
    ]),
    table("nodes_entities.csv", "nodes", entityRows, [
      ["key:ID(Entity)", (e) => e.key],
      ws,
      ["name", (e) => e.name ?? null],
      ["type", (e) => e.type ?? null],
      ["description", (e) => e.description ?? null],
      ["fragments:string[]", (e) => e.fragments ?? null],
      ["sourceChunkIds:string[]", (e) => e.sourceChunkIds ?? null],
      ["fragmentsHash", (e) => e.fragmentsHash ?? null],
      ["needsSummary:boolean", (e) => e.needsSummary ?? null],
      ["anchor:boolean", (e) => e.anchor ?? null],
      [":LABEL", () => "Entity"],
    ]),
    table("nodes_communities.csv", "nodes", snapshot.communities, [
      ["id:ID(Community)", (c) => c.id],
      ws,
      ["ordinal:int", (_, i) => i],
      ["level:int", (c) => c.level],
      ["parentId", (c) => c.parentId],
      ["childIds:string[]", (c) => c.childIds],
      ["entityKeys:string[]", (c) => c.entityKeys],
      ["contentHash", (c) => c.contentHash],
      ["reportHash", (c) => c.reportHash],
      ["reportJson", (c) => (c.report ? JSON.stringify(c.report) : null)],
      ["title", (c) => c.report?.title ?? null],
      ["summary", (c) => c.report?.summary ?? null],
      ["rating:double", (c) => c.report?.rating ?? null],
      ["report", (c) => c.report?.markdown ?? null],
      [":LABEL", () => "Community"],
    ]),
    table("nodes_relation_mentions.csv", "nodes", snapshot.relationshipMentions, [
      [":ID(RelationMention)", (_, i) => `rm${i}`],
      ws,
      ["chunkId", (m) => m.chunkId],
      ["relationshipKey", (m) => m.relationshipKey],
      ["sourceKey", (m) => m.sourceKey],
      ["targetKey", (m) => m.targetKey],
      ["description", (m) => m.description],
      ["keywords:string[]", (m) => m.keywords],
      ["strength:double", (m) => m.strength],
      ["ord:int", (_, i) => i],
      [":LABEL", () => "RelationMention"],
    ]),
  ];
}

export function relationshipTables(snapshot: GraphSnapshot, workspace: string): CsvTable[] {
  const known = new Set(snapshot.entities.map((e) => e.key));
  const pairs = (name: string, from: string, to: string, type: string, list: [string, string][]) =>
    table(name, "relationships", list, [
      [`:START_ID(${from})`, ([start]) => start],
      [`:END_ID(${to})`, ([, end]) => end],
      [":TYPE", () => type],
    ]);
  return [
    table("relationships.csv", "relationships", snapshot.relationships, [
      [":START_ID(Entity)", (r) => r.sourceKey],
      [":END_ID(Entity)", (r) => r.targetKey],
      ["workspace", () => workspace],
      ["key", (r) => r.key],
      ["description", (r) => r.description],
      ["fragments:string[]", (r) => r.fragments],
      ["keywords:string[]", (r) => r.keywords],
      ["weight:double", (r) => r.weight],
      ["sourceChunkIds:string[]", (r) => r.sourceChunkIds],
      ["fragmentsHash", (r) => r.fragmentsHash],
      ["needsSummary:boolean", (r) => r.needsSummary],
      [":TYPE", () => "RELATED"],
    ]),
    table("relationships_mentions.csv", "relationships", snapshot.entityMentions, [
      [":START_ID(Chunk)", (m) => m.chunkId],
      [":END_ID(Entity)", (m) => m.entityKey],
      ["name", (m) => m.name],
      ["type", (m) => m.type],
      ["description", (m) => m.description],
      ["ord:int", (_, i) => i],
      [":TYPE", () => "MENTIONS"],
    ]),
    pairs(
      "relationships_has_chunk.csv",
      "Document",
      "Chunk",
      "HAS_CHUNK",
      snapshot.chunks.map((c) => [c.docId, c.id]),
    ),
    pairs("relationships_next_chunk.csv", "Chunk", "Chunk", "NEXT_CHUNK", nextChunkPairs(snapshot)),
    pairs(
      "relationships_has_relation_mention.csv",
      "Chunk",
      "RelationMention",
      "HAS_RELATION_MENTION",
      snapshot.relationshipMentions.map((m, i) => [m.chunkId, `rm${i}`]),
    ),
    pairs(
      "relationships_in_community.csv",
      "Entity",
      "Community",
      "IN_COMMUNITY",
      snapshot.communities.flatMap((c) =>
        c.entityKeys.filter((k) => known.has(k)).map((k): [string, string] => [k, c.id]),
      ),
    ),
    pairs(
      "relationships_parent.csv",
      "Community",
      "Community",
      "PARENT",
      snapshot.communities.flatMap((c) =>
        c.parentId === null ? [] : [[c.id, c.parentId] as [string, string]],
      ),
    ),
  ];
}

function nextChunkPairs(snapshot: GraphSnapshot): [string, string][] {
  const byDocument = new Map<string, GraphSnapshot["chunks"]>();
  for (const chunk of snapshot.chunks)
    byDocument.set(chunk.docId, [...(byDocument.get(chunk.docId) ?? []), chunk]);
  return [...byDocument.values()].flatMap((chunks) => {
    const ids = [...chunks].sort((a, b) => a.index - b.index).map((c) => c.id);
    return ids.slice(1).map((id, i): [string, string] => [ids[i] as string, id]);
  });
}
