// Sets one workspace metadata value.
// @param workspace  the workspace this store serves
// @param key  metadata key
// @param value  metadata value
MERGE (m:Meta {workspace: $workspace, key: $key})
SET m.value = $value
