// One document record, or no row.
// @param workspace  the workspace this store serves
// @param id  document id
MATCH (d:Document {workspace: $workspace, id: $id})
RETURN {id: d.id, title: d.title, path: d.path, contentHash: d.contentHash, status: d.status, error: d.error,
        metadataJson: d.metadataJson, chunkCount: d.chunkCount, createdAt: d.createdAt, updatedAt: d.updatedAt} AS document
