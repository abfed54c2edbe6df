import type { EntityMention, RelationshipMention } from "../../types.js";
import { idList, type Sql } from "./connection.js";
import {
  type EntityMentionRow,
  type RelationshipMentionRow,
  toEntityMention,
  toRelationshipMention,
} from "./rows.js";

export interface ChunkMentions {
  entities: EntityMention[];
  relationships: RelationshipMention[];
}

const ENTITY_MENTION_COLUMNS = "entity_key, chunk_id, name, type, description";
const RELATIONSHIP_MENTION_COLUMNS =
  "relationship_key, source_key, target_key, chunk_id, description, keywords, strength";

/** Per-chunk provenance: the cached extraction that entities and relationships are folded from. */
export class MentionTable {
  constructor(private readonly sql: Sql) {}

  /** Call inside a transaction. Re-merging a chunk replaces its earlier mentions. */
  replaceForChunk(chunkId: string, mentions: ChunkMentions): void {
    for (const mention of [...mentions.entities, ...mentions.relationships]) {
      if (mention.chunkId !== chunkId) {
        throw new Error(`A mention of chunk "${mention.chunkId}" was passed with chunk "${chunkId}".`);
      }
    }
    this.sql.run("DELETE FROM entity_mentions WHERE chunk_id = ?", chunkId);
    this.sql.run("DELETE FROM relationship_mentions WHERE chunk_id = ?", chunkId);
    const insertEntity = this.sql.statement(
      `INSERT INTO entity_mentions (${ENTITY_MENTION_COLUMNS}) VALUES (?, ?, ?, ?, ?)`,
    );
    for (const m of mentions.entities) insertEntity.run(m.entityKey, chunkId, m.name, m.type, m.description);
    const insertRelationship = this.sql.statement(
      `INSERT INTO relationship_mentions (${RELATIONSHIP_MENTION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const m of mentions.relationships) {
      insertRelationship.run(
        m.relationshipKey,
        m.sourceKey,
        m.targetKey,
        chunkId,
        m.description,
        JSON.stringify(m.keywords),
        m.strength,
      );
    }
  }

  ofEntities(keys: string[]): EntityMention[] {
    return this.sql
      .all<EntityMentionRow>(
        `SELECT ${ENTITY_MENTION_COLUMNS} FROM entity_mentions
         WHERE entity_key IN (SELECT value FROM json_each(?)) ORDER BY seq`,
        idList(keys),
      )
      .map(toEntityMention);
  }

  ofRelationships(keys: string[]): RelationshipMention[] {
    return this.sql
      .all<RelationshipMentionRow>(
        `SELECT ${RELATIONSHIP_MENTION_COLUMNS} FROM relationship_mentions
         WHERE relationship_key IN (SELECT value FROM json_each(?)) ORDER BY seq`,
        idList(keys),
      )
      .map(toRelationshipMention);
  }

  ofChunks(chunkIds: string[]): ChunkMentions {
    const ids = idList(chunkIds);
    const entities = this.sql.all<EntityMentionRow>(
      `SELECT ${ENTITY_MENTION_COLUMNS} FROM entity_mentions
       WHERE chunk_id IN (SELECT value FROM json_each(?)) ORDER BY seq`,
      ids,
    );
    const relationships = this.sql.all<RelationshipMentionRow>(
      `SELECT ${RELATIONSHIP_MENTION_COLUMNS} FROM relationship_mentions
       WHERE chunk_id IN (SELECT value FROM json_each(?)) ORDER BY seq`,
      ids,
    );
    return {
      entities: entities.map(toEntityMention),
      relationships: relationships.map(toRelationshipMention),
    };
  }

  /** Keys that have at least one mention in these chunks, sorted. */
  keysOfChunks(chunkIds: string[]): { entityKeys: string[]; relationshipKeys: string[] } {
    const ids = idList(chunkIds);
    return {
      entityKeys: this.sql.column<string>(
        `SELECT DISTINCT entity_key FROM entity_mentions
         WHERE chunk_id IN (SELECT value FROM json_each(?)) ORDER BY entity_key`,
        ids,
      ),
      relationshipKeys: this.sql.column<string>(
        `SELECT DISTINCT relationship_key FROM relationship_mentions
         WHERE chunk_id IN (SELECT value FROM json_each(?)) ORDER BY relationship_key`,
        ids,
      ),
    };
  }
}
