// kgrag's vector indexes as `kgrag status` reports them: state (ONLINE, POPULATING, FAILED), how far
// populated, and configured dimension. An index serves every workspace in the database.
// @param names  the index names
SHOW VECTOR INDEXES YIELD name, state, populationPercent, options
WHERE name IN $names
RETURN name, state, populationPercent, options.indexConfig.`vector.dimensions` AS dimension
