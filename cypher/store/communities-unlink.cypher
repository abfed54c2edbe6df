// Removes the PARENT and IN_COMMUNITY edges of the workspace's communities before they are redrawn.
// @param workspace  the workspace this store serves
MATCH (c:Community {workspace: $workspace})
OPTIONAL MATCH (c)-[p:PARENT]->(:Community)
OPTIONAL MATCH (:Entity)-[m:IN_COMMUNITY]->(c)
DELETE p, m
