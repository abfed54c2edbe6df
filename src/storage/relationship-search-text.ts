import type { RelationshipRecord } from "../types.js";

/** What full-text search reads of a relationship; a whole RelationshipRecord fits. */
export type RelationshipSearchFields = Pick<
  RelationshipRecord,
  "sourceKey" | "targetKey" | "keywords" | "description"
>;

/**
 * The text both stores index for a relationship: its endpoint entity keys, keywords and
 * description, one per line. Questions name entities, and a relationship is found by what it
 * connects as much as by how it is described, so the endpoints are part of its text.
 */
export function relationshipSearchText(rel: RelationshipSearchFields): string {
  return [rel.sourceKey, rel.targetKey, ...rel.keywords, rel.description]
    .filter((part) => part.trim() !== "")
    .join("\n");
}
