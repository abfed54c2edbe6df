import type { KgragConfig } from "../config.js";
import { OfflineNlpExtractor } from "../extraction/offline-extractor.js";
import { type ChunkMentions, foldEntity, foldRelationship } from "../merge/fold.js";
import type { ChunkRecord, EntityRecord, Extraction, RelationshipRecord } from "../types.js";
import { groupBy } from "../util/group-by.js";
import { truncateToTokens } from "../util/tokens.js";

/**
 * The model's extraction of one chunk, stood in for by the offline extractor: its best-ranked
 * entities and relationships, as many as a model names (config `estimate`), each description cut
 * to a model's length. Which names a chunk holds, and so which names repeat across chunks, comes
 * from the text itself; only how many records and how long they are is calibrated.
 */
export class StandInExtractor {
  private readonly offline = new OfflineNlpExtractor();

  constructor(private readonly estimate: KgragConfig["estimate"]) {}

  extract(chunk: ChunkRecord, title: string): Extraction {
    const { entities, relationships } = this.offline.extractText(chunk.text, title);
    const short = <T extends { description: string }>(record: T): T => ({
      ...record,
      description: truncateToTokens(record.description, this.estimate.descriptionTokens),
    });
    return {
      entities: entities.slice(0, this.estimate.entitiesPerChunk).map(short),
      relationships: relationships.slice(0, this.estimate.relationshipsPerChunk).map(short),
    };
  }
}

export interface StandInGraph {
  entities: EntityRecord[];
  relationships: RelationshipRecord[];
}

/**
 * Folds the stand-in mentions with the merge code a real run uses, so the summary thresholds
 * (config `merge`) mark the same kind of records a run would send to the summarize stage.
 */
export function foldStandInGraph(chunks: ChunkMentions[], merge: KgragConfig["merge"]): StandInGraph {
  const entityMentions = groupBy(
    chunks.flatMap((c) => c.entities),
    (m) => m.entityKey,
  );
  const relationshipMentions = groupBy(
    chunks.flatMap((c) => c.relationships),
    (m) => m.relationshipKey,
  );
  const entities = [...entityMentions].flatMap(([key, mentions]) => foldEntity(key, mentions, merge) ?? []);
  const relationships = [...relationshipMentions].flatMap(
    ([key, mentions]) => foldRelationship(key, mentions, merge) ?? [],
  );
  return { entities, relationships };
}
