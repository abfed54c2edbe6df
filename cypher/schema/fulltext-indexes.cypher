// Full-text (Lucene, BM25) indexes. The CJK analyzer indexes Chinese, Japanese and Korean as
// overlapping bigrams, so text without spaces is searchable; Latin text is tokenised as usual.
CREATE FULLTEXT INDEX kgrag_chunk_text IF NOT EXISTS
FOR (c:Chunk) ON EACH [c.text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}};
// Entities are found by their name, every alias they were merged from (a list of strings) and their
// description, as in the embedded store. It replaces kgrag_entity_text (name and description only),
// which retired-indexes.cypher drops; a new index fills itself from the stored entities.
CREATE FULLTEXT INDEX kgrag_entity_names IF NOT EXISTS
FOR (e:Entity) ON EACH [e.name, e.aliases, e.description]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}};
// Relationships are searched by their searchTerms: endpoint keys, keywords and description,
// Porter-stemmed and accent-folded as the embedded store's tokenizer does (relationshipSearchTerms
// in src/storage/neo4j/search-terms.ts). It replaces kgrag_relationship_text on the unstemmed
// searchText, which retired-indexes.cypher drops.
CREATE FULLTEXT INDEX kgrag_relationship_terms IF NOT EXISTS
FOR ()-[r:RELATED]-() ON EACH [r.searchTerms]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}};
