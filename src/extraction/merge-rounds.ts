import { entityKey, relationshipKey } from "../merge/keys.js";
import type { ExtractedEntity, ExtractedRelationship, Extraction } from "../types.js";
import { UNKNOWN_ENTITY_TYPE } from "./schema.js";

/**
 * Unites the answers of several rounds (first extraction, then gleaning) for one chunk. Gleaning
 * often repeats items with a shorter or longer wording: the same entity (by normalised name) keeps
 * the longer description, the same pair keeps the longer description, all keywords and the
 * strongest strength. Order is first appearance, so the result is deterministic.
 */
export function mergeRounds(rounds: Extraction[]): Extraction {
  const entities = new Map<string, ExtractedEntity>();
  const relationships = new Map<string, ExtractedRelationship>();
  for (const round of rounds) {
    for (const entity of round.entities) {
      const key = entityKey(entity.name);
      if (!key) continue;
      const seen = entities.get(key);
      entities.set(key, seen ? mergeEntity(seen, entity) : entity);
    }
    for (const relationship of round.relationships) {
      const key = relationshipKey(entityKey(relationship.source), entityKey(relationship.target));
      const seen = relationships.get(key);
      relationships.set(key, seen ? mergeRelationship(seen, relationship) : relationship);
    }
  }
  return { entities: [...entities.values()], relationships: [...relationships.values()] };
}

function mergeEntity(first: ExtractedEntity, later: ExtractedEntity): ExtractedEntity {
  const type = first.type === UNKNOWN_ENTITY_TYPE ? later.type : first.type;
  const description =
    later.description.length > first.description.length ? later.description : first.description;
  return { name: first.name, type, description };
}

function mergeRelationship(
  first: ExtractedRelationship,
  later: ExtractedRelationship,
): ExtractedRelationship {
  const description =
    later.description.length > first.description.length ? later.description : first.description;
  return {
    source: first.source,
    target: first.target,
    description,
    keywords: uniteKeywords(first.keywords, later.keywords),
    strength: Math.max(first.strength, later.strength),
  };
}

function uniteKeywords(a: string[], b: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const keyword of [...a, ...b]) {
    const folded = keyword.toLowerCase();
    if (!seen.has(folded)) {
      seen.add(folded);
      out.push(keyword);
    }
  }
  return out;
}
