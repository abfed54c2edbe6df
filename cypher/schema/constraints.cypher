// Uniqueness of (workspace, id|key) for every record label, so MERGE finds one node and concurrent
// writers cannot create duplicates. Property uniqueness constraints exist in Community edition.
CREATE CONSTRAINT kgrag_document_key IF NOT EXISTS
FOR (d:Document) REQUIRE (d.workspace, d.id) IS UNIQUE;
CREATE CONSTRAINT kgrag_chunk_key IF NOT EXISTS
FOR (c:Chunk) REQUIRE (c.workspace, c.id) IS UNIQUE;
CREATE CONSTRAINT kgrag_entity_key IF NOT EXISTS
FOR (e:Entity) REQUIRE (e.workspace, e.key) IS UNIQUE;
CREATE CONSTRAINT kgrag_community_key IF NOT EXISTS
FOR (c:Community) REQUIRE (c.workspace, c.id) IS UNIQUE;
CREATE CONSTRAINT kgrag_meta_key IF NOT EXISTS
FOR (m:Meta) REQUIRE (m.workspace, m.key) IS UNIQUE;
CREATE CONSTRAINT kgrag_llm_cache_key IF NOT EXISTS
FOR (l:LlmCache) REQUIRE (l.workspace, l.stage, l.model, l.promptHash) IS UNIQUE;
CREATE CONSTRAINT kgrag_counter_key IF NOT EXISTS
FOR (n:Counter) REQUIRE (n.workspace, n.name) IS UNIQUE;
CREATE CONSTRAINT kgrag_writer_lease_key IF NOT EXISTS
FOR (l:WriterLease) REQUIRE l.workspace IS UNIQUE;
