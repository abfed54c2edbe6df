import { z } from "zod";
import { readableDescription, readableHistoryEntry, storedDescription } from "../merge/description-text.js";
import { entityKey, relationshipKey } from "../merge/keys.js";
import { MIN_STRENGTH, StrengthSchema } from "../merge/strength.js";
import { OptionsError } from "../options-error.js";
import type { IndexComponents } from "../pipeline/index-workflow.js";
import { settleGraph } from "../pipeline/index-workflow.js";
import type { KgragServices } from "../services.js";
import type { EntityRecord, HistoryEntry, RelationshipRecord } from "../types.js";
import { closestName } from "../util/closest-name.js";
import { currentUser } from "../util/current-user.js";
import { parseOptions } from "../util/strict-options.js";
import { addRules, loadResolution } from "./apply-rules.js";
import { type CandidatePair, findCandidates } from "./candidates.js";
import { checkNewRules, EditorName, type EntityRule, NonEmptyText } from "./rules.js";
import { findSimilarPairs, similarityTuning } from "./similar-pairs.js";

/**
 * Why a curation call was refused: a name that matches no entity, one that matches several, a
 * request that cannot be carried out as asked, or a new name another entity already has.
 */
export type CurationErrorReason = "not_found" | "ambiguous" | "invalid" | "conflict";

/** A curation call naming no entity, or several: nothing is changed. */
export class UnknownEntityError extends Error {
  constructor(
    message: string,
    readonly reason: Extract<CurationErrorReason, "not_found" | "ambiguous"> = "not_found",
  ) {
    super(message);
    this.name = "UnknownEntityError";
  }
}

/**
 * A curation call that names its entities but cannot be carried out as asked (an empty value, a
 * merge of one entity, `into` outside the merge) or would give a name to two entities: the
 * caller's mistake, so an OptionsError (the CLI exits 2, the server answers 400, or 409 for a
 * name taken). Nothing is changed.
 */
export class CurationInputError extends OptionsError {
  constructor(
    message: string,
    readonly reason: Extract<CurationErrorReason, "invalid" | "conflict"> = "invalid",
  ) {
    super(message);
    this.name = "CurationInputError";
  }
}

export interface EditOptions {
  /** Who made the edit, recorded in the rule and the history (default: the OS user). */
  by?: string;
}

export interface MergeOptions extends EditOptions {
  /**
   * The entity that survives (a name or key among those merged); default the best-connected:
   * most relationships, then most source passages, then the longest name.
   */
  into?: string;
  /** A new display name for the survivor. */
  name?: string;
}

/** An entity made by hand: no passage holds it, so only a delete by hand removes it. */
export interface EntityInput {
  name: string;
  /** Any type, kept in lower case as edits keep it; default the type later extractions give, else "unknown". */
  type?: string;
  /** What the entity is: embedded and searched like an extracted description (one fragment a line). */
  description: string;
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
const EditOptionsSchema = z.strictObject({ by: EditorName.optional() }) satisfies z.ZodType<EditOptions>;
const MergeOptionsSchema = EditOptionsSchema.extend({
  into: NonEmptyText.optional(),
  name: NonEmptyText.optional(),
}) satisfies z.ZodType<MergeOptions>;
const EditFieldsSchema = z.strictObject({
  type: NonEmptyText.optional(),
  description: NonEmptyText.optional(),
});
const EntityInputSchema = z.strictObject({
  name: NonEmptyText,
  type: NonEmptyText.optional(),
  description: NonEmptyText,
}) satisfies z.ZodType<EntityInput>;
const RelationshipInputSchema = z.strictObject({
  description: NonEmptyText,
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
 * rebuilt by the next index or `kgrag communities --rebuild`. Entities, relationships and history
 * are returned with their descriptions readable (description-text.ts), aliases always a list.
 */
export interface EntityCuration {
  /** Entities by name, with aliases; `query` keeps those whose name or an alias contains it. */
  list(query?: string): Promise<EntityRecord[]>;
  /** The entity a name, alias or key stands for. */
  get(nameOrKey: string): Promise<EntityRecord>;
  /** Pairs that might be one entity but were left apart, with their evidence, for a person to decide. */
  duplicates(): Promise<CandidatePair[]>;
  /**
   * Makes an entity by hand, embedded and searchable like an extracted one. It is kept through
   * re-indexing and document deletes; a later extraction of its name folds into it. Refused when
   * the name is another entity's name or alias.
   */
  create(input: EntityInput, options?: EditOptions): Promise<EntityRecord>;
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

/** A slip of the keyboard ("Lumora Opitcs") gets the name or alias it most likely meant. */
function guessOf(name: string, entities: readonly EntityRecord[]): string {
  const names = entities.flatMap((e) => [e.name, ...(e.aliases ?? [])]);
  const meant = closestName(name, names);
  return meant ? ` Did you mean "${meant}"?` : "";
}

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
    const entities = await store.listEntities();
    const matches = entities.filter(
      (e) => entityKey(e.name) === wanted || (e.aliases ?? []).some((a) => entityKey(a) === wanted),
    );
    if (matches.length === 1) return matches[0]!;
    if (matches.length > 1) {
      throw new UnknownEntityError(
        `"${nameOrKey}" names ${matches.length} entities (${matches.map((e) => e.key).join(", ")}); give a key.`,
        "ambiguous",
      );
    }
    throw new UnknownEntityError(
      `No entity named "${nameOrKey}" in this workspace.${guessOf(nameOrKey, entities)}`,
    );
  };

  /**
   * An entity's history; one that is gone (deleted by hand, or with its last document) is found
   * by its key, so what removed it can still be read.
   */
  const historyOfNamed = async (nameOrKey: string): Promise<HistoryEntry[]> => {
    // A document's metadata edits are kept under its id, which may equal an entity's key ("porto").
    const historyOfEntity = async (key: string) =>
      (await store.listHistory(key)).filter((entry) => entry.kind !== "document");
    try {
      return await historyOfEntity((await find(nameOrKey)).key);
    } catch (error) {
      if (!(error instanceof UnknownEntityError) || error.reason !== "not_found") throw error;
      const gone = await historyOfEntity(entityKey(nameOrKey));
      if (gone.length === 0) throw error;
      return gone;
    }
  };

  /** A new name may not be another entity's name or alias: it would name two entities (merge them instead). */
  const mustBeFreeName = async (name: string, own: string[]) => {
    if (!name.trim()) throw new CurationInputError("A name must not be empty.");
    const wanted = entityKey(name);
    const holder = (await store.listEntities()).find(
      (e) =>
        !own.includes(e.key) &&
        (e.key === wanted ||
          entityKey(e.name) === wanted ||
          (e.aliases ?? []).some((a) => entityKey(a) === wanted)),
    );
    if (holder) {
      throw new CurationInputError(
        `"${name}" already names another entity ("${holder.name}", ${holder.key}); merge them instead.`,
        "conflict",
      );
    }
  };

  /**
   * Records the rules, re-folds what they touch, then summarises and re-embeds what changed. The
   * rules are checked as they will be read back first: one that could not be read would be stored.
   */
  const record = async (what: string, rules: EntityRule[], touched: string[], action: string, by: string) => {
    await addRules(services, checkNewRules(rules, `entities.${what}`), touched, `${action} by ${by}`);
    await settleGraph(services, components, true, { communities: false });
  };
  const apply = (what: string, rules: EntityRule[], touched: string[], action: string, by: string) =>
    writing(() => record(what, rules, touched, action, by));

  const provenance = (options: EditOptions = {}) => ({
    by: options.by ?? currentUser(),
    at: new Date().toISOString(),
  });

  return {
    list: async (query) => {
      const all = await store.listEntities();
      const needle = query?.toLowerCase();
      const wanted = needle
        ? all.filter((e) => [e.name, ...(e.aliases ?? [])].some((n) => n.toLowerCase().includes(needle)))
        : all;
      return wanted.map(readableEntity);
    },
    get: async (nameOrKey) => readableEntity(await find(nameOrKey)),
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
    create: async (givenInput, given) => {
      const input = parseOptions(EntityInputSchema, givenInput, { what: "entities.create", noun: "field" });
      const options = editOptions(given, "create");
      const name = input.name.trim();
      const key = entityKey(name);
      if (key === "") throw new CurationInputError(`"${input.name}" has no letters to name an entity by.`);
      const p = provenance(options);
      const rule: EntityRule = {
        kind: "add-entity",
        key,
        name,
        ...(input.type !== undefined ? { type: input.type.trim().toLowerCase() } : {}),
        description: storedDescription(input.description),
        ...p,
      };
      // The name is checked in the same writer's turn as the rule is added: two creates of one
      // name at once would otherwise both find it free and make one entity of two rules.
      await writing(async () => {
        await mustBeFreeName(name, []);
        const folds = (await loadResolution(store)).canonical(key);
        if (folds !== key) {
          throw new CurationInputError(
            `"${name}" is merged into ${folds} by an earlier rule; split it from that entity first.`,
            "conflict",
          );
        }
        await record("create", [rule], [key], "create entity", p.by);
      });
      return readableEntity(await find(key));
    },
    merge: async (names, given) => {
      const options = parseOptions(MergeOptionsSchema, given, { what: "entities.merge" });
      if (names.length < 2) throw new CurationInputError("Merging needs at least two entities.");
      const entities = await Promise.all(names.map(find));
      const keys = unique(entities.map((e) => e.key));
      if (keys.length < 2) {
        throw new CurationInputError(
          `${names.map((n) => `"${n}"`).join(" and ")} all name one entity ("${entities[0]!.name}", ${keys[0]}): nothing to merge.`,
        );
      }
      const survivor = options.into ? await find(options.into) : await bestConnected(store, entities);
      if (!keys.includes(survivor.key)) {
        throw new CurationInputError(
          `into: "${options.into}" is not among the entities merged; give one of them ` +
            "(to give the survivor a new name, use name).",
        );
      }
      const others = keys.filter((key) => key !== survivor.key);
      if (options.name !== undefined) await mustBeFreeName(options.name, [survivor.key, ...others]);
      const p = provenance(options);
      const rules: EntityRule[] = others.map((from) => ({ kind: "merge", from, into: survivor.key, ...p }));
      if (options.name) rules.push(...renameRules(survivor.key, options.name, p));
      await apply(
        "merge",
        rules,
        [survivor.key, ...others],
        `merge ${others.join(", ")} into ${survivor.key}`,
        p.by,
      );
      return readableEntity(await find(survivor.key));
    },
    rename: async (nameOrKey, newName, given) => {
      const options = editOptions(given, "rename");
      const entity = await find(nameOrKey);
      await mustBeFreeName(newName, [entity.key]);
      const p = provenance(options);
      await apply("rename", renameRules(entity.key, newName, p), [entity.key], "rename", p.by);
      return readableEntity(await find(entity.key));
    },
    edit: async (nameOrKey, givenFields, given) => {
      const fields = parseOptions(EditFieldsSchema, givenFields, { what: "entities.edit", noun: "field" });
      const options = editOptions(given, "edit");
      if (fields.type === undefined && fields.description === undefined) {
        throw new CurationInputError("An edit needs a type or a description.");
      }
      const entity = await find(nameOrKey);
      const p = provenance(options);
      const rule: EntityRule = { kind: "edit", key: entity.key, ...p };
      if (fields.type !== undefined) rule.type = fields.type.toLowerCase();
      // Written as the API shows descriptions (one fragment a line), stored with <SEP> between them.
      if (fields.description !== undefined) rule.description = storedDescription(fields.description);
      await apply("edit", [rule], [entity.key], "edit", p.by);
      return readableEntity(await find(entity.key));
    },
    split: async (nameOrKey, alias, given) => {
      const options = editOptions(given, "split");
      const entity = await find(nameOrKey);
      const resolution = await loadResolution(store);
      const aliasKey = entityKey(alias);
      // After a rename the old name is listed among the aliases, but it is the entity's own key.
      if (aliasKey === entity.key) {
        throw new CurationInputError(
          `"${alias}" is the name "${entity.name}" (${entity.key}) was extracted under, not an alias merged ` +
            "into it: it cannot be split off (rename the entity to change its name).",
        );
      }
      if (resolution.canonical(aliasKey) !== entity.key) {
        throw new CurationInputError(`"${alias}" is not an alias of "${entity.name}" (${entity.key}).`);
      }
      const p = provenance(options);
      const rule: EntityRule = { kind: "split", alias: aliasKey, from: entity.key, ...p };
      await apply("split", [rule], [entity.key, aliasKey], `split ${aliasKey} from ${entity.key}`, p.by);
      return readableEntity(await find(aliasKey));
    },
    deleteEntity: async (nameOrKey, given) => {
      const options = editOptions(given, "deleteEntity");
      const entity = await find(nameOrKey);
      const p = provenance(options);
      await apply(
        "deleteEntity",
        [{ kind: "delete-entity", key: entity.key, ...p }],
        [entity.key],
        "delete entity",
        p.by,
      );
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
      await apply("deleteRelationship", [rule], [ea.key, eb.key], "delete relationship", p.by);
    },
    addRelationship: async (a, b, givenInput, given) => {
      const input = parseOptions(RelationshipInputSchema, givenInput, {
        what: "entities.addRelationship",
        noun: "field",
      });
      const options = editOptions(given, "addRelationship");
      const [ea, eb] = [await find(a), await find(b)];
      if (ea.key === eb.key) {
        throw new CurationInputError(
          `A relationship needs two different entities; "${a}" and "${b}" both name "${ea.name}" (${ea.key}).`,
        );
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
      await apply("addRelationship", [rule], [ea.key, eb.key], "add relationship", p.by);
      const [record] = await store.getRelationships([relationshipKey(ea.key, eb.key)]);
      if (!record) throw new Error("The relationship was not added.");
      return { ...record, description: readableDescription(record.description) };
    },
    history: async (nameOrKey) => {
      const entries = nameOrKey === undefined ? await store.listHistory() : await historyOfNamed(nameOrKey);
      return entries.map(readableHistoryEntry);
    },
    rules: async () => (await loadResolution(store)).rules,
  };
}

/**
 * A rename, and a merge of the new name's key into the entity: what later documents say under the
 * new name is this entity, not a second one of that name (the name is free, so nothing has that
 * key yet).
 */
function renameRules(key: string, name: string, provenance: { by: string; at: string }): EntityRule[] {
  const rename: EntityRule = { kind: "rename", key, name, ...provenance };
  const named = entityKey(name);
  if (named === key) return [rename];
  return [rename, { kind: "merge", from: named, into: key, ...provenance, note: "the entity's new name" }];
}

/**
 * An entity as the curation API returns it: its description readable (fragments on lines, no
 * stored separator) as everywhere else in the API, and its aliases always a list.
 */
function readableEntity(entity: EntityRecord): EntityRecord {
  return { ...entity, description: readableDescription(entity.description), aliases: entity.aliases ?? [] };
}

/**
 * The survivor of a merge given no `into`: the entity with the most relationships, then the most
 * source passages, then the longest name ("Lumora Optics", linked everywhere, over a passing
 * "Lumora"); ties to the first given. Its name and type are what the merge keeps.
 */
async function bestConnected(store: KgragServices["store"], entities: EntityRecord[]): Promise<EntityRecord> {
  const degrees = await store.degrees(unique(entities.map((e) => e.key)));
  const rank = (e: EntityRecord) => [degrees.get(e.key) ?? 0, e.sourceChunkIds.length, e.name.length];
  return entities.reduce((best, entity) => {
    const [a, b] = [rank(entity), rank(best)];
    const i = a.findIndex((value, at) => value !== b[at]);
    return i >= 0 && a[i]! > b[i]! ? entity : best;
  });
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
