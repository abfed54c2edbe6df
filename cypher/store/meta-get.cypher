// One workspace metadata value (embedding model and dimension, extractor kind, ...).
// @param workspace  the workspace this store serves
// @param key  metadata key
MATCH (m:Meta {workspace: $workspace, key: $key})
RETURN m.value AS value
