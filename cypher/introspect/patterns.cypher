// The (start label)-[type]->(end label) combinations actually present, from a sample of
// relationships of each type (db.schema.visualization over-reports combinations).
// @param perType relationships sampled per type (an integer)
CALL db.relationshipTypes() YIELD relationshipType
CALL (relationshipType) {
  MATCH (a)-[r]->(b)
  WHERE type(r) = relationshipType
  WITH a, b
  LIMIT $perType
  UNWIND labels(a) AS start
  UNWIND labels(b) AS end
  RETURN DISTINCT start, end
}
RETURN DISTINCT start, relationshipType AS type, end
ORDER BY type, start, end
