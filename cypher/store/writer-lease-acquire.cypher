// Takes the workspace's writer lease if it is free, expired or already this writer's, or, with
// $previous set, if it is still held by that (dead) owner. The MERGE on the unique workspace key
// locks the lease node, so two writers asking at once are served one after the other.
// Returns whether it was taken and who holds it now.
// @param workspace  the workspace this store serves
// @param owner  this writer's id (unique per process and lease)
// @param pid  this process's id
// @param host  this host's name
// @param ttlMs  how long the lease lasts unless renewed
// @param previous?  the owner id to take over from, or null
MERGE (l:WriterLease {workspace: $workspace})
WITH l, (l.owner IS NULL OR l.expiresAt < timestamp() OR l.owner = $owner
         OR ($previous IS NOT NULL AND l.owner = $previous)) AS free
CALL (l, free) {
  WITH l WHERE free
  SET l.since = CASE WHEN l.owner = $owner THEN l.since ELSE timestamp() END
  SET l.owner = $owner, l.pid = $pid, l.host = $host, l.expiresAt = timestamp() + $ttlMs
}
RETURN free AS acquired, l.owner AS owner, l.pid AS pid, l.host AS host, l.since AS since
