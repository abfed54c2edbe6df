import type { EntityMention, ExtractedRelationship, Extraction, RelationshipMention } from "../types.js";
import { canonicalPair, entityKey, relationshipKey } from "./keys.js";
import { clampStrength } from "./strength.js";

/** Placeholder type of an entity known only as the endpoint of a relationship. */
export const UNKNOWN_TYPE = "unknown";

/** Types that say little; a named type from another extraction round is preferred over them. */
const GENERIC_TYPES = new Set([UNKNOWN_TYPE, "", "other", "misc", "entity", "thing", "concept"]);

export interface ChunkMentions {
  entities: EntityMention[];
  relationships: RelationshipMention[];
}

/**
 * Turns one chunk's extraction into mentions: at most one per entity and per entity pair (gleaning
 * rounds repeat items), no empty names or self-loops, and a placeholder mention for every
 * relationship endpoint the extraction did not list, so every edge has both its nodes.
 */
export function mentionsFromExtraction(chunkId: string, extraction: Extraction): ChunkMentions {
  const entities = new Map<string, EntityMention>();
  for (const extracted of extraction.entities) {
    const mention = entityMention(chunkId, extracted.name, extracted.type, extracted.description);
    if (!mention) continue;
    const existing = entities.get(mention.entityKey);
    entities.set(mention.entityKey, existing ? preferEntityMention(existing, mention) : mention);
  }
  const relationships = new Map<string, RelationshipMention>();
  for (const extracted of extraction.relationships) {
    const mention = relationshipMention(chunkId, extracted);
    if (!mention) continue;
    for (const endpoint of [extracted.source, extracted.target]) {
      const placeholder = entityMention(chunkId, endpoint, UNKNOWN_TYPE, "")!;
      if (!entities.has(placeholder.entityKey)) entities.set(placeholder.entityKey, placeholder);
    }
    const existing = relationships.get(mention.relationshipKey);
    relationships.set(
      mention.relationshipKey,
      existing ? mergeRelationshipMentions(existing, mention) : mention,
    );
  }
  return { entities: [...entities.values()], relationships: [...relationships.values()] };
}

function entityMention(
  chunkId: string,
  rawName: string,
  type: string,
  description: string,
): EntityMention | null {
  const name = cleanText(rawName);
  const key = entityKey(name);
  if (!key) return null;
  return { entityKey: key, chunkId, name, type: normaliseType(type), description: cleanText(description) };
}

function relationshipMention(chunkId: string, extracted: ExtractedRelationship): RelationshipMention | null {
  const [sourceKey, targetKey] = canonicalPair(entityKey(extracted.source), entityKey(extracted.target));
  if (!sourceKey || !targetKey || sourceKey === targetKey) return null;
  return {
    relationshipKey: relationshipKey(sourceKey, targetKey),
    sourceKey,
    targetKey,
    chunkId,
    description: cleanText(extracted.description),
    keywords: uniqueKeywords(extracted.keywords),
    strength: clampStrength(extracted.strength),
  };
}

/** The longer description wins; the type is the more specific of the two. */
function preferEntityMention(a: EntityMention, b: EntityMention): EntityMention {
  const longer = b.description.length > a.description.length ? b : a;
  const type = typeSpecificity(b.type) > typeSpecificity(a.type) ? b.type : a.type;
  return { ...longer, name: a.name, type };
}

/** The longer description wins; keywords are united; the strength is not counted twice. */
function mergeRelationshipMentions(a: RelationshipMention, b: RelationshipMention): RelationshipMention {
  const longer = b.description.length > a.description.length ? b : a;
  return {
    ...longer,
    keywords: uniqueKeywords([...a.keywords, ...b.keywords]),
    strength: Math.max(a.strength, b.strength),
  };
}

function typeSpecificity(type: string): number {
  return GENERIC_TYPES.has(type) ? (type === UNKNOWN_TYPE || type === "" ? 0 : 1) : 2;
}

export function normaliseType(type: string): string {
  const cleaned = cleanText(type).toLowerCase();
  return cleaned || UNKNOWN_TYPE;
}

function cleanText(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function uniqueKeywords(keywords: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const keyword of keywords.map(cleanText)) {
    const folded = keyword.toLowerCase();
    if (keyword && !seen.has(folded)) {
      seen.add(folded);
      out.push(keyword);
    }
  }
  return out;
}
