// Range indexes for the lookups that are not by unique key: everything of one workspace, the
// chunks of a document, the mentions of a relationship, history in order, RELATED edges by key.
CREATE INDEX kgrag_document_workspace IF NOT EXISTS FOR (d:Document) ON (d.workspace);
CREATE INDEX kgrag_chunk_workspace IF NOT EXISTS FOR (c:Chunk) ON (c.workspace);
CREATE INDEX kgrag_chunk_document IF NOT EXISTS FOR (c:Chunk) ON (c.workspace, c.docId);
CREATE INDEX kgrag_entity_workspace IF NOT EXISTS FOR (e:Entity) ON (e.workspace);
CREATE INDEX kgrag_community_workspace IF NOT EXISTS FOR (c:Community) ON (c.workspace);
CREATE INDEX kgrag_relation_mention_key IF NOT EXISTS
FOR (m:RelationMention) ON (m.workspace, m.relationshipKey);
CREATE INDEX kgrag_history_seq IF NOT EXISTS FOR (h:History) ON (h.workspace, h.seq);
CREATE INDEX kgrag_llm_cache_workspace IF NOT EXISTS FOR (l:LlmCache) ON (l.workspace);
CREATE INDEX kgrag_related_key IF NOT EXISTS FOR ()-[r:RELATED]-() ON (r.key);
