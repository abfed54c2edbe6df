import { z } from "zod";
import { clampStrength } from "../merge/strength.js";
import { OptionsError } from "../options-error.js";
import type { GraphStore } from "../storage/graph-store.js";
import { issuesLine } from "../util/zod-messages.js";

/**
 * Rules are what entity resolution and hand curation add on top of the extracted mentions. The
 * graph is a fold of mentions under the rules, so every re-fold (a merge, a delete, an update, a
 * re-index) applies them again. They are kept in order; a later rule overrides an earlier one.
 */
/** Text that says something: empty or only spaces is refused (a `by`, a description, a name). */
export const NonEmptyText = z.string().refine((text) => text.trim() !== "", "must not be empty");

/** Who makes an edit, as given: shown in history tables, so no line breaks or terminal escapes. */
export const EditorName = NonEmptyText.refine(
  (text) => !/\p{Cc}/u.test(text),
  "must not hold control characters (line breaks, tabs, escapes)",
);

const Provenance = {
  /** "resolution" for index-time merges, otherwise the person (or tool) that made the edit. */
  by: NonEmptyText,
  at: z.string().min(1),
  note: z.string().optional(),
};

export const EntityRuleSchema = z.discriminatedUnion("kind", [
  /** Mentions of `from` (an entity key) fold into `into`. */
  z.object({ kind: z.literal("merge"), from: z.string().min(1), into: z.string().min(1), ...Provenance }),
  /** Undoes any merge of `alias` and keeps it apart from `from` (resolution will not merge them again). */
  z.object({ kind: z.literal("split"), alias: z.string().min(1), from: z.string().min(1), ...Provenance }),
  z.object({ kind: z.literal("rename"), key: z.string().min(1), name: z.string().min(1), ...Provenance }),
  z.object({
    kind: z.literal("edit"),
    key: z.string().min(1),
    type: z.string().min(1).optional(),
    description: z.string().optional(),
    ...Provenance,
  }),
  z.object({ kind: z.literal("delete-entity"), key: z.string().min(1), ...Provenance }),
  /**
   * An entity made by hand: it stands on this rule, not on a passage, so no re-index or document
   * delete removes it; what later documents say under its name folds into it.
   */
  z.object({
    kind: z.literal("add-entity"),
    key: z.string().min(1),
    name: z.string().min(1),
    type: z.string().min(1).optional(),
    description: z.string().min(1),
    ...Provenance,
  }),
  z.object({
    kind: z.literal("delete-relationship"),
    source: z.string().min(1),
    target: z.string().min(1),
    ...Provenance,
  }),
  z.object({
    kind: z.literal("add-relationship"),
    source: z.string().min(1),
    target: z.string().min(1),
    description: z.string().min(1),
    keywords: z.array(z.string()).default([]),
    /**
     * Read leniently: a rule stored before strengths were held to 1-10 (or a hand-edited one) is
     * brought into range rather than refused, which would leave the workspace unreadable. New
     * rules are checked where they are made (kg.entities.addRelationship).
     */
    strength: z.number().optional().transform(clampStrength),
    ...Provenance,
  }),
]);

export type EntityRule = z.infer<typeof EntityRuleSchema>;

/** Workspace metadata key holding the rules (metadata exists in every store, so both carry them). */
const RULES_META_KEY = "entity-rules";

/**
 * The stored rules. One that cannot be read (written by an older kgrag that let a bad value
 * through, or edited by hand) is skipped with a process warning naming it and what is wrong,
 * rather than refusing every later write of the workspace; the next write of the rules (a
 * curation edit, or an index run whose resolution merges entities) leaves it out for good.
 */
export async function loadRules(store: Pick<GraphStore, "getMeta">): Promise<EntityRule[]> {
  const raw = await store.getMeta(RULES_META_KEY);
  if (!raw) return [];
  const stored: unknown = JSON.parse(raw);
  if (!Array.isArray(stored)) {
    warnOnce("The workspace's entity rules are not a list; they are ignored and replaced at the next write.");
    return [];
  }
  return stored.flatMap((entry: unknown, index) => {
    const parsed = EntityRuleSchema.safeParse(entry);
    if (parsed.success) return [parsed.data];
    warnOnce(
      `Entity rule ${index + 1} of ${stored.length} (${describeStoredRule(entry)}) cannot be read and is ` +
        `ignored (${issuesLine(parsed.error)}); the next write of the rules (a curation edit, or an index ` +
        "run that merges entities) removes it. " +
        "Redo the edit with kgrag entities if it is still wanted.",
    );
    return [];
  });
}

/**
 * New rules, checked as loadRules will read them back: a value it would refuse is the caller's
 * mistake (`what` is the call, `entities.edit`), refused before anything is stored.
 */
export function checkNewRules(rules: EntityRule[], what: string): EntityRule[] {
  for (const rule of rules) {
    const parsed = EntityRuleSchema.safeParse(rule);
    if (!parsed.success) throw new OptionsError(`Invalid ${what} input: ${issuesLine(parsed.error)}.`);
  }
  return rules;
}

/** "edit of 北京 by alice": what a stored rule is, as far as it can be read. */
function describeStoredRule(entry: unknown): string {
  if (typeof entry !== "object" || entry === null) return `not a rule: ${JSON.stringify(entry)}`;
  const field = (name: string) => {
    const value = (entry as Record<string, unknown>)[name];
    return typeof value === "string" ? value : undefined;
  };
  const kind = field("kind") ?? "unknown kind";
  const source = field("source");
  const target = field("target");
  const entity =
    field("key") ?? field("alias") ?? field("from") ?? (source && target ? `${source} — ${target}` : source);
  return [kind, entity ? `of ${entity}` : "", field("by") ? `by ${field("by")}` : ""]
    .filter(Boolean)
    .join(" ");
}

/** Rules are read on every write; each problem is told once per process. */
const warned = new Set<string>();
function warnOnce(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  process.emitWarning(message, { code: "KGRAG_UNREADABLE_RULE" });
}

export async function saveRules(store: Pick<GraphStore, "setMeta">, rules: EntityRule[]): Promise<void> {
  await store.setMeta(RULES_META_KEY, JSON.stringify(rules));
}
