// An entity's direct neighbours with the relationship between them, strongest first. The entity
// is found by its key (the lower-cased name) or its exact name.
// @param workspace  the workspace (filled in by `kgrag cypher`)
// @param entity  entity name
// @param limit?  how many neighbours (default 50)
MATCH (e:Entity {workspace: $workspace})
WHERE e.key = toLower(trim($entity)) OR e.name = $entity
MATCH (e)-[r:RELATED]-(n:Entity)
WHERE r.anchor IS NULL AND n.anchor IS NULL
RETURN e.name AS entity, n.name AS neighbour, n.type AS type, r.weight AS weight,
       r.keywords AS keywords, r.description AS relationship
ORDER BY weight DESC, neighbour
LIMIT coalesce($limit, 50)
