// Deletes the communities that are not in the new hierarchy (with their vectors and edges).
// @param workspace  the workspace this store serves
// @param ids  ids of the communities that stay
MATCH (c:Community {workspace: $workspace})
WHERE NOT c.id IN $ids
DETACH DELETE c
