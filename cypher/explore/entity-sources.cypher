// The source passages of an entity, or of the relationship between two entities when `other` is
// given: document, chunk position, what the passage said about it, and the passage text.
// @param workspace  the workspace (filled in by `kgrag cypher`)
// @param entity  entity name
// @param other?  name of a second entity, to see the passages of their relationship
// @param maxChars?  how much of each passage to show (default 300)
MATCH (e:Entity {workspace: $workspace})
WHERE e.key = toLower(trim($entity)) OR e.name = $entity
OPTIONAL MATCH (e)-[r:RELATED]-(o:Entity)
WHERE $other IS NOT NULL AND (o.key = toLower(trim($other)) OR o.name = $other)
WITH e, r
WHERE $other IS NULL OR r IS NOT NULL
CALL (e, r) {
  WITH e, r
  WHERE r IS NULL
  MATCH (c:Chunk)-[m:MENTIONS]->(e)
  RETURN c, m.description AS said
  UNION
  WITH e, r
  WHERE r IS NOT NULL
  MATCH (c:Chunk)-[:HAS_RELATION_MENTION]->(m:RelationMention {workspace: $workspace, relationshipKey: r.key})
  RETURN c, m.description AS said
}
MATCH (d:Document)-[:HAS_CHUNK]->(c)
RETURN d.title AS document, c.index AS chunk, said, left(c.text, coalesce($maxChars, 300)) AS passage
ORDER BY document, chunk
