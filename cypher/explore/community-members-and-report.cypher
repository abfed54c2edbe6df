// One community: its level, parent, report (title, rating, markdown) and member entities.
// @param workspace  the workspace (filled in by `kgrag cypher`)
// @param community  community id (see `kgrag communities`)
MATCH (c:Community {workspace: $workspace, id: $community})
OPTIONAL MATCH (c)-[:PARENT]->(parent:Community)
OPTIONAL MATCH (e:Entity)-[:IN_COMMUNITY]->(c)
WITH c, parent, e
ORDER BY e.name
RETURN c.id AS community, c.level AS level, parent.id AS parent, c.title AS title,
       c.rating AS rating, collect(e.name) AS members, c.report AS report
