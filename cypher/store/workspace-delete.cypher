// Deletes everything of one workspace (every node carries it; edges go with their nodes), label by
// label so each uses its index. One transaction: meant for tests and small workspaces.
// @param workspace  the workspace to delete
CALL () {
  MATCH (n:RelationMention {workspace: $workspace})
  DETACH DELETE n
}
CALL () {
  MATCH (n:Chunk {workspace: $workspace})
  DETACH DELETE n
}
CALL () {
  MATCH (n:Document {workspace: $workspace})
  DETACH DELETE n
}
CALL () {
  MATCH (n:Entity {workspace: $workspace})
  DETACH DELETE n
}
CALL () {
  MATCH (n:Community {workspace: $workspace})
  DETACH DELETE n
}
CALL () {
  MATCH (n:History {workspace: $workspace})
  DELETE n
}
CALL () {
  MATCH (n:LlmCache {workspace: $workspace})
  DELETE n
}
CALL () {
  MATCH (n:Meta {workspace: $workspace})
  DELETE n
}
CALL () {
  MATCH (n:Counter {workspace: $workspace})
  DELETE n
}
CALL () {
  MATCH (n:WriterLease {workspace: $workspace})
  DELETE n
}
