// Draws (:Community)-[:PARENT]->(:Community) and (:Entity)-[:IN_COMMUNITY]->(:Community) edges
// from the stored parentId and entityKeys (members without an entity record get no edge).
// @param workspace  the workspace this store serves
MATCH (c:Community {workspace: $workspace})
WHERE c.anchor IS NULL
CALL (c) {
  MATCH (parent:Community {workspace: $workspace, id: c.parentId})
  USING INDEX parent:Community(workspace, id)
  CREATE (c)-[:PARENT]->(parent)
}
CALL (c) {
  UNWIND c.entityKeys AS key
  MATCH (e:Entity {workspace: $workspace, key: key})
  USING INDEX e:Entity(workspace, key)
  WHERE e.anchor IS NULL
  CREATE (e)-[:IN_COMMUNITY]->(c)
}
