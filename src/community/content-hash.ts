import { hashJson } from "../util/hash.js";
import type { GraphIndex } from "./graph-index.js";

/**
 * What a community's report is written from: its membership, its members' names, types and
 * descriptions, and its internal relationships' descriptions. The report is reused while this
 * hash holds. A parent's hash covers its children's content, so a change anywhere below it
 * also redoes the parent.
 */
export function communityContentHash(entityKeys: readonly string[], index: GraphIndex): string {
  const entities = [...entityKeys].sort().map((key) => {
    const entity = index.entity(key);
    return [key, entity?.name ?? "", entity?.type ?? "", entity?.description ?? ""];
  });
  const relationships = index.internalRelationships(entityKeys).map((rel) => [rel.key, rel.description]);
  return hashJson({ entities, relationships });
}
