/**
 * kgrag's graph model in Neo4j, as data: the labels, relationship types, property types and
 * patterns that every statement in cypher/ may use. The Cypher lint test checks each statement
 * against it, and the same shape (labels, relationshipTypes, nodeProperties,
 * relationshipProperties, patterns) is what Text2Cypher works from.
 *
 * Every node carries `workspace`; `(workspace, id|key)` is unique per label. A node or RELATED
 * edge with `anchor = true` holds no record: it exists only so that mentions or vectors stored
 * before (or after) their record have something to hang on. Record reads skip anchors.
 */

type PropertyTypes = Record<string, string>;

const EMBEDDING: PropertyTypes = {
  embedding: "LIST<FLOAT>",
  embeddingHash: "STRING",
  embeddingNorm: "FLOAT",
  anchor: "BOOLEAN",
};

export const GRAPH_MODEL = {
  labels: [
    "Document",
    "Chunk",
    "Entity",
    "Community",
    "RelationMention",
    "Meta",
    "LlmCache",
    "History",
    "Counter",
    "WriterLease",
  ],
  relationshipTypes: [
    "HAS_CHUNK",
    "NEXT_CHUNK",
    "MENTIONS",
    "HAS_RELATION_MENTION",
    "RELATED",
    "IN_COMMUNITY",
    "PARENT",
  ],
  nodeProperties: {
    Document: {
      workspace: "STRING",
      id: "STRING",
      title: "STRING",
      path: "STRING",
      contentHash: "STRING",
      status: "STRING",
      error: "STRING",
      metadataJson: "STRING",
      chunkCount: "INTEGER",
      createdAt: "STRING",
      updatedAt: "STRING",
    },
    Chunk: {
      workspace: "STRING",
      id: "STRING",
      docId: "STRING",
      index: "INTEGER",
      text: "STRING",
      tokens: "INTEGER",
      start: "INTEGER",
      end: "INTEGER",
      status: "STRING",
      error: "STRING",
      rawOutput: "STRING",
      mergeSeq: "INTEGER",
      ...EMBEDDING,
    },
    Entity: {
      workspace: "STRING",
      key: "STRING",
      name: "STRING",
      type: "STRING",
      description: "STRING",
      fragments: "LIST<STRING>",
      sourceChunkIds: "LIST<STRING>",
      fragmentsHash: "STRING",
      needsSummary: "BOOLEAN",
      ...EMBEDDING,
    },
    Community: {
      workspace: "STRING",
      id: "STRING",
      level: "INTEGER",
      parentId: "STRING",
      childIds: "LIST<STRING>",
      entityKeys: "LIST<STRING>",
      contentHash: "STRING",
      reportHash: "STRING",
      title: "STRING",
      summary: "STRING",
      rating: "FLOAT",
      report: "STRING",
      reportJson: "STRING",
      ordinal: "INTEGER",
      ...EMBEDDING,
    },
    RelationMention: {
      workspace: "STRING",
      chunkId: "STRING",
      relationshipKey: "STRING",
      sourceKey: "STRING",
      targetKey: "STRING",
      description: "STRING",
      keywords: "LIST<STRING>",
      strength: "FLOAT",
      ord: "INTEGER",
    },
    Meta: { workspace: "STRING", key: "STRING", value: "STRING" },
    LlmCache: {
      workspace: "STRING",
      stage: "STRING",
      model: "STRING",
      promptHash: "STRING",
      response: "STRING",
      promptTokens: "INTEGER",
      completionTokens: "INTEGER",
    },
    History: {
      workspace: "STRING",
      seq: "INTEGER",
      // A page of entries (history-append.cypher)...
      count: "INTEGER",
      keys: "LIST<STRING>",
      entries: "STRING",
      // ...or, written by an older kgrag, one entry.
      kind: "STRING",
      key: "STRING",
      action: "STRING",
      oldDescription: "STRING",
      newDescription: "STRING",
      cause: "STRING",
      at: "STRING",
    },
    Counter: { workspace: "STRING", name: "STRING", value: "INTEGER" },
    WriterLease: {
      workspace: "STRING",
      owner: "STRING",
      pid: "INTEGER",
      host: "STRING",
      since: "INTEGER",
      expiresAt: "INTEGER",
    },
  } satisfies Record<string, PropertyTypes>,
  relationshipProperties: {
    MENTIONS: { name: "STRING", type: "STRING", description: "STRING", ord: "INTEGER" },
    RELATED: {
      workspace: "STRING",
      key: "STRING",
      description: "STRING",
      fragments: "LIST<STRING>",
      keywords: "LIST<STRING>",
      weight: "FLOAT",
      sourceChunkIds: "LIST<STRING>",
      fragmentsHash: "STRING",
      needsSummary: "BOOLEAN",
      searchTerms: "STRING",
      ...EMBEDDING,
    },
  } satisfies Record<string, PropertyTypes>,
  patterns: [
    { start: "Document", type: "HAS_CHUNK", end: "Chunk" },
    { start: "Chunk", type: "NEXT_CHUNK", end: "Chunk" },
    { start: "Chunk", type: "MENTIONS", end: "Entity" },
    { start: "Chunk", type: "HAS_RELATION_MENTION", end: "RelationMention" },
    { start: "Entity", type: "RELATED", end: "Entity" },
    { start: "Entity", type: "IN_COMMUNITY", end: "Community" },
    { start: "Community", type: "PARENT", end: "Community" },
  ],
};

/** Every property name used anywhere in the model. */
export function modelPropertyKeys(): string[] {
  const keys = new Set<string>();
  for (const props of [
    ...Object.values(GRAPH_MODEL.nodeProperties),
    ...Object.values(GRAPH_MODEL.relationshipProperties),
  ]) {
    for (const key of Object.keys(props)) keys.add(key);
  }
  return [...keys].sort();
}
