import { splitRelationshipKey } from "../merge/keys.js";
import { planRebuild } from "../merge/plan.js";
import { markCommunitiesStale } from "../pipeline/community-freshness.js";
import type { KgragServices } from "../services.js";
import type { GraphChanges } from "../types.js";
import { Resolution } from "./resolution.js";
import { type EntityRule, loadRules, saveRules } from "./rules.js";

/** The rules as they stand in the workspace, replayed. */
export async function loadResolution(store: KgragServices["store"]): Promise<Resolution> {
  return new Resolution(await loadRules(store));
}

/**
 * Adds rules and re-folds what they touch from the stored mentions, in one graph change: the
 * entities named by the rules (before and after), every relationship of those entities, and the
 * relationships their extracted mentions fold into now. Communities are marked stale.
 */
export async function addRules(
  services: KgragServices,
  rules: EntityRule[],
  touchedKeys: string[],
  cause: string,
): Promise<GraphChanges> {
  const { store } = services;
  const before = await loadResolution(store);
  const after = new Resolution([...before.rules, ...rules]);
  const entityKeys = unique(
    touchedKeys.flatMap((key) => [
      key,
      before.canonical(key),
      after.canonical(key),
      ...before.expandEntity(before.canonical(key)),
      ...after.expandEntity(after.canonical(key)),
    ]),
  ).flatMap((key) => [key, before.canonical(key), after.canonical(key)]);
  const keys = unique(entityKeys);
  const stored = (await store.relationshipsOf(keys)).map((r) => r.key);
  const extracted = unique(stored.flatMap((key) => before.expandRelationship(key, splitRelationshipKey)));
  const refolded = (await store.getRelationshipMentions(extracted)).flatMap(
    (m) => after.mapRelationshipMention(m)?.relationshipKey ?? [],
  );
  const manual = [...before.manualRelationshipKeys(), ...after.manualRelationshipKeys()];
  const relationshipKeys = unique([...stored, ...refolded, ...manual]);
  const changes = await planRebuild(store, keys, relationshipKeys, cause, {
    ...services.config.merge,
    resolution: after,
  });
  await markCommunitiesStale(store);
  await saveRules(store, after.rules as EntityRule[]);
  await store.applyGraphChanges(changes);
  return changes;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
