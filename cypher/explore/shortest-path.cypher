// The shortest chain of relationships between two entities (up to 6 hops), with what each hop says.
// @param workspace  the workspace (filled in by `kgrag cypher`)
// @param from  name of the first entity
// @param to  name of the second entity
MATCH (a:Entity {workspace: $workspace})
WHERE a.key = toLower(trim($from)) OR a.name = $from
MATCH (b:Entity {workspace: $workspace})
WHERE b.key = toLower(trim($to)) OR b.name = $to
MATCH p = shortestPath((a)-[:RELATED*..6]-(b))
RETURN length(p) AS hops,
       [n IN nodes(p) | n.name] AS entities,
       [r IN relationships(p) | r.description] AS relationships
