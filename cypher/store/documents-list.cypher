// All document records in creation order.
// @param workspace  the workspace this store serves
MATCH (d:Document {workspace: $workspace})
RETURN {id: d.id, title: d.title, path: d.path, contentHash: d.contentHash, status: d.status, error: d.error,
        metadataJson: d.metadataJson, chunkCount: d.chunkCount, createdAt: d.createdAt, updatedAt: d.updatedAt} AS document
ORDER BY d.createdAt, d.id
