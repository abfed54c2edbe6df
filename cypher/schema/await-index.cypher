// Waits until an index is online (it is populated in the background after creation).
// @param name  index name
// @param timeoutSeconds  how long to wait before failing
CALL db.awaitIndex($name, $timeoutSeconds)
