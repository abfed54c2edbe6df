// Number of relationships of every entity of the workspace that has any (a self-loop counts once):
// read once per write generation and kept, since each query asks for hundreds of degrees.
// @param workspace  the workspace this store serves
MATCH (e:Entity {workspace: $workspace})-[r:RELATED]-(:Entity)
WHERE r.anchor IS NULL
RETURN e.key AS key, count(DISTINCT r) AS degree
