// Appends history entries, a page of them per node: one node per entry made the history most of a
// merge transaction's nodes (63,000 of them indexing HotpotQA-100). `seq` (from the "history"
// counter) is the first entry's number, and the page's entries follow it in order; `keys` lists the
// keys they are about, so one key's history is found without reading every page's JSON.
// @param workspace  the workspace this store serves
// @param rows  list of {seq, count, keys, entriesJson}; entriesJson a JSON array of {kind, key, action, oldDescription, newDescription, cause, at}
UNWIND $rows AS row
CREATE (:History {
  workspace: $workspace,
  seq: row.seq,
  count: row.count,
  keys: row.keys,
  entries: row.entriesJson
})
