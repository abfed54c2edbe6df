import { z } from "zod";
import { clampStrength } from "../merge/strength.js";
import type { GraphStore } from "../storage/graph-store.js";

/**
 * Rules are what entity resolution and hand curation add on top of the extracted mentions. The
 * graph is a fold of mentions under the rules, so every re-fold (a merge, a delete, an update, a
 * re-index) applies them again. They are kept in order; a later rule overrides an earlier one.
 */
const Provenance = {
  /** "resolution" for index-time merges, otherwise the person (or tool) that made the edit. */
  by: z.string().min(1),
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

export async function loadRules(store: Pick<GraphStore, "getMeta">): Promise<EntityRule[]> {
  const raw = await store.getMeta(RULES_META_KEY);
  if (!raw) return [];
  return z.array(EntityRuleSchema).parse(JSON.parse(raw));
}

export async function saveRules(store: Pick<GraphStore, "setMeta">, rules: EntityRule[]): Promise<void> {
  await store.setMeta(RULES_META_KEY, JSON.stringify(rules));
}
