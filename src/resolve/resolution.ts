import { canonicalPair, entityKey, relationshipKey } from "../merge/keys.js";
import { UNKNOWN_TYPE } from "../merge/mentions.js";
import type { EntityMention, EntityRecord, RelationshipMention, RelationshipRecord } from "../types.js";
import type { EntityRule } from "./rules.js";

/** Chunk ids of hand-added entity and relationship mentions start with this; they are no source passage. */
export const MANUAL_CHUNK_PREFIX = "manual:";
/** Hand-made entities' mentions, apart from the relationships' (`manual:0`, ...) numbered by rule. */
const MANUAL_ENTITY_CHUNK_PREFIX = `${MANUAL_CHUNK_PREFIX}entity:`;

interface EntityEdit {
  type?: string;
  description?: string;
}

/**
 * The rules replayed into lookups: which entity key every extracted key folds into, and the edits
 * that apply after folding. Built once per run from the stored rules.
 */
export class Resolution {
  private readonly parent = new Map<string, string>();
  private readonly apart = new Set<string>();
  private readonly names = new Map<string, string>();
  private readonly edits = new Map<string, EntityEdit>();
  private readonly deletedEntities = new Set<string>();
  private readonly deletedRelationships: [string, string][] = [];
  private readonly added: Extract<EntityRule, { kind: "add-relationship" }>[] = [];
  private created: Extract<EntityRule, { kind: "add-entity" }>[] = [];
  /** Keys deleted by hand: their extracted mentions stay out, even when the name is made again by hand. */
  private readonly extractedDeleted = new Set<string>();
  private members = new Map<string, string[]>();
  private manual = new Map<string, RelationshipMention[]>();
  private manualEntities = new Map<string, EntityMention[]>();

  constructor(readonly rules: readonly EntityRule[] = []) {
    for (const rule of rules) this.replay(rule);
    this.index();
  }

  /** The entity key an extracted key folds into. */
  canonical(key: string): string {
    let current = key;
    const seen = new Set<string>();
    for (let next = this.parent.get(current); next !== undefined; next = this.parent.get(current)) {
      if (seen.has(next)) break;
      seen.add(current);
      current = next;
    }
    return current;
  }

  /** Every extracted key that folds into this entity key (none when it is itself merged away). */
  expandEntity(key: string): string[] {
    return this.members.get(key) ?? (this.parent.has(key) ? [] : [key]);
  }

  /** Every extracted relationship key that folds into this one. */
  expandRelationship(key: string, split: (key: string) => [string, string]): string[] {
    const [a, b] = split(key);
    const keys: string[] = [];
    for (const x of this.expandEntity(a))
      for (const y of this.expandEntity(b)) keys.push(relationshipKey(x, y));
    return keys;
  }

  /** An extracted mention of an entity deleted by hand (made again or not): it stays out. */
  dropsExtractedEntityMention(m: EntityMention): boolean {
    return this.extractedDeleted.has(m.entityKey);
  }

  mapEntityMention(m: EntityMention): EntityMention {
    const key = this.canonical(m.entityKey);
    return key === m.entityKey ? m : { ...m, entityKey: key };
  }

  /** Null when both ends fold into one entity: an alias is no relationship. */
  mapRelationshipMention(m: RelationshipMention): RelationshipMention | null {
    const [source, target] = canonicalPair(this.canonical(m.sourceKey), this.canonical(m.targetKey));
    if (source === target) return null;
    // An extracted relationship of an entity deleted by hand stays out when the name is made again.
    if (this.extractedDeleted.has(m.sourceKey) || this.extractedDeleted.has(m.targetKey)) return null;
    if (source === m.sourceKey && target === m.targetKey) return m;
    return { ...m, sourceKey: source, targetKey: target, relationshipKey: relationshipKey(source, target) };
  }

  manualMentions(key: string): RelationshipMention[] {
    return this.manual.get(key) ?? [];
  }

  /** The mentions of entities made by hand that fold into this entity key (no stored passage holds them). */
  manualEntityMentions(key: string): EntityMention[] {
    return this.manualEntities.get(key) ?? [];
  }

  /** Keys of every relationship added by hand (they have no extracted mention to be found by). */
  manualRelationshipKeys(): string[] {
    return [...this.manual.keys()];
  }

  /**
   * Keys of the relationships added by hand with one of these entities at an end: a re-fold of an
   * entity re-folds them too, so they leave with an entity whose passages are gone and come back
   * with it.
   */
  manualRelationshipKeysOf(entityKeys: Iterable<string>): string[] {
    const wanted = new Set(entityKeys);
    return [...this.manual.values()].flatMap(([m]) =>
      m && (wanted.has(m.sourceKey) || wanted.has(m.targetKey)) ? [m.relationshipKey] : [],
    );
  }

  keptApart(a: string, b: string): boolean {
    return this.apart.has(pairId(this.canonical(a), this.canonical(b))) || this.apart.has(pairId(a, b));
  }

  isDeleted(key: string): boolean {
    return this.deletedEntities.has(key);
  }

  /** Applies renames, edits and deletes to a folded entity, and lists the other names it was found under. */
  finishEntity(key: string, folded: EntityRecord | null, mentions: EntityMention[]): EntityRecord | null {
    if (!folded || this.deletedEntities.has(key)) return null;
    const surfaces = surfaceNames(mentions);
    const ownName = entityKey(folded.name) === key ? folded.name : surfaces.get(key);
    const name = this.names.get(key) ?? ownName ?? folded.name;
    const aliases = [...surfaces.entries()]
      .filter(([surfaceKey]) => surfaceKey !== entityKey(name))
      .map(([, surface]) => surface)
      .sort();
    const edit = this.edits.get(key);
    const sourceChunkIds = folded.sourceChunkIds.filter((id) => !id.startsWith(MANUAL_CHUNK_PREFIX));
    const record: EntityRecord = { ...folded, name, sourceChunkIds };
    if (aliases.length > 0) record.aliases = aliases;
    if (edit?.type) record.type = edit.type;
    if (edit?.description !== undefined) {
      record.description = edit.description;
      record.needsSummary = false;
    }
    return record;
  }

  finishRelationship(folded: RelationshipRecord | null): RelationshipRecord | null {
    if (!folded) return null;
    if (this.deletedEntities.has(folded.sourceKey) || this.deletedEntities.has(folded.targetKey)) return null;
    const deleted = this.deletedRelationships.some(
      ([a, b]) => relationshipKey(this.canonical(a), this.canonical(b)) === folded.key,
    );
    if (deleted) return null;
    const sourceChunkIds = folded.sourceChunkIds.filter((id) => !id.startsWith(MANUAL_CHUNK_PREFIX));
    return sourceChunkIds.length === folded.sourceChunkIds.length ? folded : { ...folded, sourceChunkIds };
  }

  private replay(rule: EntityRule): void {
    switch (rule.kind) {
      case "merge": {
        const from = this.canonical(rule.from);
        const into = this.canonical(rule.into);
        if (from === into || this.keptApart(from, into)) return;
        this.parent.set(from, into);
        // The survivor keeps its own name unless it was renamed; the merged one's edits go with it.
        this.names.delete(from);
        return;
      }
      case "split":
        this.parent.delete(rule.alias);
        this.apart.add(pairId(rule.alias, this.canonical(rule.from)));
        return;
      case "rename":
        this.names.set(rule.key, rule.name);
        return;
      case "edit":
        this.edits.set(rule.key, {
          ...this.edits.get(rule.key),
          ...(rule.type ? { type: rule.type } : {}),
          ...(rule.description !== undefined ? { description: rule.description } : {}),
        });
        return;
      case "delete-entity":
        this.deletedEntities.add(rule.key);
        this.extractedDeleted.add(rule.key);
        // Made again later, it has only the later hand-given description.
        this.created = this.created.filter((made) => made.key !== rule.key);
        return;
      case "add-entity":
        // Made again after a delete, it is back with only what was made by hand (extractedDeleted
        // keeps the extracted mentions out); its name and type are the hand-given ones, as after a
        // rename and an edit, while its description is one fragment among the extracted.
        this.created.push(rule);
        this.deletedEntities.delete(rule.key);
        this.names.set(rule.key, rule.name);
        this.edits.set(rule.key, rule.type ? { type: rule.type } : {});
        return;
      case "delete-relationship":
        this.deletedRelationships.push([rule.source, rule.target]);
        return;
      case "add-relationship":
        this.added.push(rule);
        return;
    }
  }

  private index(): void {
    const members = new Map<string, string[]>();
    const keys = new Set([...this.parent.keys(), ...this.parent.values()]);
    for (const key of keys) {
      const root = this.canonical(key);
      members.set(root, [...(members.get(root) ?? [root]), ...(key === root ? [] : [key])]);
    }
    this.members = members;
    const manual = new Map<string, RelationshipMention[]>();
    this.added.forEach((rule, i) => {
      const [sourceKey, targetKey] = canonicalPair(this.canonical(rule.source), this.canonical(rule.target));
      if (sourceKey === targetKey) return;
      const key = relationshipKey(sourceKey, targetKey);
      const mention: RelationshipMention = {
        relationshipKey: key,
        sourceKey,
        targetKey,
        chunkId: `${MANUAL_CHUNK_PREFIX}${i}`,
        description: rule.description,
        keywords: rule.keywords,
        strength: rule.strength,
      };
      manual.set(key, [...(manual.get(key) ?? []), mention]);
    });
    this.manual = manual;
    const manualEntities = new Map<string, EntityMention[]>();
    this.created.forEach((rule, i) => {
      const key = this.canonical(rule.key);
      const mention: EntityMention = {
        entityKey: key,
        chunkId: `${MANUAL_ENTITY_CHUNK_PREFIX}${i}`,
        name: rule.name,
        type: rule.type ?? UNKNOWN_TYPE,
        description: rule.description,
      };
      manualEntities.set(key, [...(manualEntities.get(key) ?? []), mention]);
    });
    this.manualEntities = manualEntities;
  }
}

function pairId(a: string, b: string): string {
  const [x, y] = canonicalPair(a, b);
  return `${x}\u001f${y}`;
}

/** The most frequent surface form under each extracted key. */
function surfaceNames(mentions: EntityMention[]): Map<string, string> {
  const counts = new Map<string, Map<string, number>>();
  for (const m of mentions) {
    const key = entityKey(m.name);
    const forms = counts.get(key) ?? new Map<string, number>();
    forms.set(m.name, (forms.get(m.name) ?? 0) + 1);
    counts.set(key, forms);
  }
  const best = new Map<string, string>();
  for (const [key, forms] of counts) {
    const ranked = [...forms.entries()].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
    best.set(key, ranked[0]![0]);
  }
  return best;
}
