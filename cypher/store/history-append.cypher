// Appends history entries; seq (from the "history" counter) gives their order.
// @param workspace  the workspace this store serves
// @param rows  list of {seq, kind, key, action, oldDescription, newDescription, cause, at}
UNWIND $rows AS row
CREATE (:History {
  workspace: $workspace,
  seq: row.seq,
  kind: row.kind,
  key: row.key,
  action: row.action,
  oldDescription: row.oldDescription,
  newDescription: row.newDescription,
  cause: row.cause,
  at: row.at
})
