import { userInfo } from "node:os";
import { z } from "zod";
import { entityKey, relationshipKey } from "../merge/keys.js";
import { MIN_STRENGTH, StrengthSchema } from "../merge/strength.js";
import type { IndexComponents } from "../pipeline/index-workflow.js";
import { settleGraph } from "../pipeline/index-workflow.js";
import type { KgragServices } from "../services.js";
import type { EntityRecord, HistoryEntry, RelationshipRecord } from "../types.js";
import { parseOptions } from "../util/strict-options.js";
import { addRules, loadResolution } from "./apply-rules.js";
import { type CandidatePair, findCandidates } from "./candidates.js";
import type { EntityRule } from "./rules.js";
import { findSimilarPairs, similarityTuning } from "./similar-pairs.js";

/**
 * Why a curation call was refused: a name that matches no entity, one that matches several, a
 * request that cannot be carried out as asked, or a new name another entity already has.
 */
export type CurationErrorReason = "not_found" | "ambiguous" | "invalid" | "conflict";

/** A curation call refused for bad input: nothing is changed. */
export class UnknownEntityError extends Error {
  constructor(
    message: string,
    readonly reason: CurationErrorReason = "not_found",
  ) {
    super(message);
    this.name = "UnknownEntityError";
  }
}

export interface EditOptions {
  /** Who made the edit, recorded in the rule and the history (default: the OS user). */
  by?: string;
}

export interface MergeOptions extends EditOptions {
  /** The entity that survives (a name or key among those merged); default the first. */
  into?: string;
  /** A new display name for the survivor. */
  name?: string;
}

export interface RelationshipInput {
  description: string;
  keywords?: string[];
  /** 1 (a passing link) to 10 (as strong as links get); default 1. */
  strength?: number;
}

/**
 * Strict, like the query's options: a misspelt `intoo` would otherwise be dropped and the merge
 * kept the first entity, a misspelt `keyword` left the relationship without its keywords.
 */
const EditOptionsSchema = z.strictObject({ by: z.string().optional() }) satisfies z.ZodType<EditOptions>;
const MergeOptionsSchema = EditOptionsSchema.extend({
  into: z.string().optional(),
  name: z.string().optional(),
}) satisfies z.ZodType<MergeOptions>;
const EditFieldsSchema = z.strictObject({ type: z.string().optional(), description: z.string().optional() });
const RelationshipInputSchema = z.strictObject({
  description: z.string(),
  keywords: z.array(z.string()).optional(),
  strength: StrengthSchema.optional(),
}) satisfies z.ZodType<RelationshipInput>;

/** A curation call's options, checked: `what` is the method as callers know it (`entities.merge`). */
const editOptions = (options: EditOptions | undefined, what: string) =>
  parseOptions(EditOptionsSchema, options, { what: `entities.${what}` });

/**
 * Hand curation of the graph: every edit becomes a rule, so a re-index or a delete folds the
 * graph again with it; it is applied at once (history with who and when, re-embedded, the
 * description summarised when the merge made it long) and marks the communities stale, to be
 * rebuilt by the next index or `kgrag communities --rebuild`.
 */
export interface EntityCuration {
  /** Entities by name, with aliases; `query` keeps those whose name or an alias contains it. */
  list(query?: string): Promise<EntityRecord[]>;
  /** The entity a name, alias or key stands for. */
  get(nameOrKey: string): Promise<EntityRecord>;
  /** Pairs that might be one entity but were left apart, with their evidence, for a person to decide. */
  duplicates(): Promise<CandidatePair[]>;
  merge(names: string[], options?: MergeOptions): Promise<EntityRecord>;
  rename(nameOrKey: string, newName: string, options?: EditOptions): Promise<EntityRecord>;
  edit(
    nameOrKey: string,
    fields: { type?: string; description?: string },
    options?: EditOptions,
  ): Promise<EntityRecord>;
  /** Takes an alias back out of an entity; resolution will not merge the two again. */
  split(nameOrKey: string, alias: string, options?: EditOptions): Promise<EntityRecord>;
  deleteEntity(nameOrKey: string, options?: EditOptions): Promise<void>;
  deleteRelationship(a: string, b: string, options?: EditOptions): Promise<void>;
  addRelationship(
    a: string,
    b: string,
    input: RelationshipInput,
    options?: EditOptions,
  ): Promise<RelationshipRecord>;
  /** What changed an entity (or everything), oldest first. */
  history(nameOrKey?: string): Promise<HistoryEntry[]>;
  /** The rules in force (resolution merges and hand edits), in order. */
  rules(): Promise<readonly EntityRule[]>;
}

type Writing = <T>(work: () => Promise<T>) => Promise<T>;

export function createEntityCuration(
  services: KgragServices,
  components: IndexComponents,
  writing: Writing,
): EntityCuration {
  const { store } = services;

  const find = async (nameOrKey: string): Promise<EntityRecord> => {
    const resolution = await loadResolution(store);
    const direct = await store.getEntities([resolution.canonical(entityKey(nameOrKey))]);
    if (direct[0]) return direct[0];
    const wanted = entityKey(nameOrKey);
    const matches = (await store.listEntities()).filter(
      (e) => entityKey(e.name) === wanted || (e.aliases ?? []).some((a) => entityKey(a) === wanted),
    );
    if (matches.length === 1) return matches[0]!;
    if (matches.length > 1) {
      throw new UnknownEntityError(
        `"${nameOrKey}" names ${matches.length} entities (${matches.map((e) => e.key).join(", ")}); give a key.`,
        "ambiguous",
      );
    }
    throw new UnknownEntityError(`No entity named "${nameOrKey}" in this workspace.`);
  };

  /** A new name may not be another entity's name or alias: it would name two entities (merge them instead). */
  const mustBeFreeName = async (name: string, own: string[]) => {
    if (!name.trim()) throw new UnknownEntityError("A name must not be empty.", "invalid");
    const wanted = entityKey(name);
    const holder = (await store.listEntities()).find(
      (e) =>
        !own.includes(e.key) &&
        (e.key === wanted ||
          entityKey(e.name) === wanted ||
          (e.aliases ?? []).some((a) => entityKey(a) === wanted)),
    );
    if (holder) {
      throw new UnknownEntityError(
        `"${name}" already names another entity ("${holder.name}", ${holder.key}); merge them instead.`,
        "conflict",
      );
    }
  };

  /** Records the rules, re-folds what they touch, then summarises and re-embeds what changed. */
  const apply = (rules: EntityRule[], touched: string[], action: string, by: string) =>
    writing(async () => {
      await addRules(services, rules, touched, `${action} by ${by}`);
      await settleGraph(services, components, true, { communities: false });
    });

  const provenance = (options: EditOptions = {}) => ({
    by: options.by ?? currentUser(),
    at: new Date().toISOString(),
  });

  return {
    list: async (query) => {
      const all = await store.listEntities();
      if (!query) return all;
      const needle = query.toLowerCase();
      return all.filter((e) => [e.name, ...(e.aliases ?? [])].some((n) => n.toLowerCase().includes(needle)));
    },
    get: find,
    duplicates: async () => {
      const resolution = await loadResolution(store);
      const entities = await store.listEntities();
      const relationships = await store.listRelationships();
      const { similarity, maxBlockSize } = services.config.resolution;
      const pairs = findCandidates(
        entities,
        relationships,
        services.config.resolution,
        (a, b) => resolution.keptApart(a, b),
        await findSimilarPairs(store, entities, relationships, {
          ...similarityTuning(similarity, services.embedder.kind),
          maxBlockSize,
        }),
      );
      // Names that match are listed whatever the graph says; close vectors only with graph evidence.
      return pairs.filter(
        (p) =>
          p.name.relation !== "conflict" && p.typesAgree && (p.foundBy === "name" || p.decision !== "apart"),
      );
    },
    merge: async (names, given) => {
      const options = parseOptions(MergeOptionsSchema, given, { what: "entities.merge" });
      if (names.length < 2) throw new UnknownEntityError("Merging needs at least two entities.", "invalid");
      const entities = await Promise.all(names.map(find));
      const survivor = options.into ? await find(options.into) : entities[0]!;
      const others = unique(entities.map((e) => e.key)).filter((key) => key !== survivor.key);
      if (options.name !== undefined) await mustBeFreeName(options.name, [survivor.key, ...others]);
      const p = provenance(options);
      const rules: EntityRule[] = others.map((from) => ({ kind: "merge", from, into: survivor.key, ...p }));
      if (options.name) rules.push({ kind: "rename", key: survivor.key, name: options.name, ...p });
      await apply(rules, [survivor.key, ...others], `merge ${others.join(", ")} into ${survivor.key}`, p.by);
      return find(survivor.key);
    },
    rename: async (nameOrKey, newName, given) => {
      const options = editOptions(given, "rename");
      const entity = await find(nameOrKey);
      await mustBeFreeName(newName, [entity.key]);
      const p = provenance(options);
      await apply([{ kind: "rename", key: entity.key, name: newName, ...p }], [entity.key], "rename", p.by);
      return find(entity.key);
    },
    edit: async (nameOrKey, givenFields, given) => {
      const fields = parseOptions(EditFieldsSchema, givenFields, { what: "entities.edit", noun: "field" });
      const options = editOptions(given, "edit");
      if (!fields.type?.trim() && fields.description === undefined) {
        throw new UnknownEntityError("An edit needs a type or a description.", "invalid");
      }
      const entity = await find(nameOrKey);
      const p = provenance(options);
      const rule: EntityRule = { kind: "edit", key: entity.key, ...p };
      if (fields.type) rule.type = fields.type.toLowerCase();
      if (fields.description !== undefined) rule.description = fields.description;
      await apply([rule], [entity.key], "edit", p.by);
      return find(entity.key);
    },
    split: async (nameOrKey, alias, given) => {
      const options = editOptions(given, "split");
      const entity = await find(nameOrKey);
      const resolution = await loadResolution(store);
      const aliasKey = entityKey(alias);
      if (resolution.canonical(aliasKey) !== entity.key || aliasKey === entity.key) {
        throw new UnknownEntityError(
          `"${alias}" is not an alias of "${entity.name}" (${entity.key}).`,
          "invalid",
        );
      }
      const p = provenance(options);
      const rule: EntityRule = { kind: "split", alias: aliasKey, from: entity.key, ...p };
      await apply([rule], [entity.key, aliasKey], `split ${aliasKey} from ${entity.key}`, p.by);
      return find(aliasKey);
    },
    deleteEntity: async (nameOrKey, given) => {
      const options = editOptions(given, "deleteEntity");
      const entity = await find(nameOrKey);
      const p = provenance(options);
      await apply([{ kind: "delete-entity", key: entity.key, ...p }], [entity.key], "delete entity", p.by);
    },
    deleteRelationship: async (a, b, given) => {
      const options = editOptions(given, "deleteRelationship");
      const [ea, eb] = [await find(a), await find(b)];
      const key = relationshipKey(ea.key, eb.key);
      if ((await store.getRelationships([key])).length === 0) {
        throw new UnknownEntityError(`No relationship between "${ea.name}" and "${eb.name}".`);
      }
      const p = provenance(options);
      const rule: EntityRule = { kind: "delete-relationship", source: ea.key, target: eb.key, ...p };
      await apply([rule], [ea.key, eb.key], "delete relationship", p.by);
    },
    addRelationship: async (a, b, givenInput, given) => {
      const input = parseOptions(RelationshipInputSchema, givenInput, {
        what: "entities.addRelationship",
        noun: "field",
      });
      const options = editOptions(given, "addRelationship");
      const [ea, eb] = [await find(a), await find(b)];
      if (ea.key === eb.key) {
        throw new UnknownEntityError("A relationship needs two different entities.", "invalid");
      }
      if (!input.description.trim()) {
        throw new UnknownEntityError("A relationship needs a description.", "invalid");
      }
      const p = provenance(options);
      const rule: EntityRule = {
        kind: "add-relationship",
        source: ea.key,
        target: eb.key,
        description: input.description,
        keywords: input.keywords ?? [],
        strength: input.strength ?? MIN_STRENGTH,
        ...p,
      };
      await apply([rule], [ea.key, eb.key], "add relationship", p.by);
      const [record] = await store.getRelationships([relationshipKey(ea.key, eb.key)]);
      if (!record) throw new Error("The relationship was not added.");
      return record;
    },
    history: async (nameOrKey) => {
      if (nameOrKey === undefined) return store.listHistory();
      return store.listHistory((await find(nameOrKey)).key);
    },
    rules: async () => (await loadResolution(store)).rules,
  };
}

function currentUser(): string {
  try {
    return process.env.KGRAG_USER || userInfo().username || "unknown";
  } catch {
    return "unknown";
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
