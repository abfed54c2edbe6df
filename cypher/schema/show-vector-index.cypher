// The state and configured dimension of one vector index (no row when it does not exist).
// @param name  index name
SHOW VECTOR INDEXES YIELD name, state, options
WHERE name = $name
RETURN name, state, options.indexConfig.`vector.dimensions` AS dimension
