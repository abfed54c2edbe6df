import { splitRelationshipKey } from "../merge/keys.js";
import type { MergeReadStore } from "../merge/plan.js";
import type { EntityMention, RelationshipMention } from "../types.js";
import type { Resolution } from "./resolution.js";

/**
 * The store's mention reads seen through the rules: asking for an entity key returns the mentions
 * of every key that folds into it, relabelled, plus those of the entities made by hand that fold
 * into it, and a relationship's include those of every pair of such keys plus the ones added by hand. Records are read as stored.
 */
export function resolvedReads(store: MergeReadStore, resolution: Resolution): MergeReadStore {
  return {
    getEntities: (keys) => store.getEntities(keys),
    getRelationships: (keys) => store.getRelationships(keys),
    getEntityMentions: async (keys) => {
      const extracted = unique(keys.flatMap((key) => resolution.expandEntity(key)));
      const mapped = mapEntityMentions(resolution, await store.getEntityMentions(extracted));
      return [...mapped, ...unique(keys).flatMap((key) => resolution.manualEntityMentions(key))];
    },
    getRelationshipMentions: async (keys) => {
      const extracted = unique(
        keys.flatMap((key) => resolution.expandRelationship(key, splitRelationshipKey)),
      );
      const mapped = mapRelationshipMentions(resolution, await store.getRelationshipMentions(extracted));
      return [...mapped, ...unique(keys).flatMap((key) => resolution.manualMentions(key))];
    },
    getChunkMentions: async (chunkIds) => {
      const stored = await store.getChunkMentions(chunkIds);
      return resolveMentions(resolution, stored);
    },
  };
}

export function resolveMentions(
  resolution: Resolution,
  mentions: { entities: EntityMention[]; relationships: RelationshipMention[] },
): { entities: EntityMention[]; relationships: RelationshipMention[] } {
  return {
    entities: mapEntityMentions(resolution, mentions.entities),
    relationships: mapRelationshipMentions(resolution, mentions.relationships),
  };
}

function mapEntityMentions(resolution: Resolution, mentions: EntityMention[]): EntityMention[] {
  return mentions.flatMap((m) =>
    resolution.dropsExtractedEntityMention(m) ? [] : [resolution.mapEntityMention(m)],
  );
}

function mapRelationshipMentions(
  resolution: Resolution,
  mentions: RelationshipMention[],
): RelationshipMention[] {
  return mentions.flatMap((m) => resolution.mapRelationshipMention(m) ?? []);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
