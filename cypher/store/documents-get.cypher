// Document records of the ids asked for, in no particular order; unknown ids give no row. Lets
// concurrent single-document reads share one round trip (see key-batcher.ts).
// @param workspace  the workspace this store serves
// @param ids  document ids
UNWIND $ids AS id
MATCH (d:Document {workspace: $workspace, id: id})
USING INDEX d:Document(workspace, id)
RETURN {id: d.id, title: d.title, path: d.path, contentHash: d.contentHash, status: d.status, error: d.error,
        metadataJson: d.metadataJson, chunkCount: d.chunkCount, createdAt: d.createdAt, updatedAt: d.updatedAt} AS document
