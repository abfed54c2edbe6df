// Indexes of earlier kgrag versions, dropped when a database is opened. kgrag_relationship_text
// read the unstemmed RELATED.searchText; kgrag_relationship_terms (fulltext-indexes.cypher) reads
// the stemmed searchTerms, which opening a workspace fills in (search-text-backfill.ts).
// kgrag_entity_text read name and description only; kgrag_entity_names reads the aliases too.
DROP INDEX kgrag_relationship_text IF EXISTS;
DROP INDEX kgrag_entity_text IF EXISTS;
