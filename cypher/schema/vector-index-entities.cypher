// Vector index over Entity.embedding (cosine). Created by the first vector upsert that leaves
// the namespace too large to rank in memory (vector-index-need.ts), with that vector's dimension;
// vectors of any other dimension are stored but not indexed.
// @param dimension  length of the embedding vectors
// @param m  HNSW links per vector (neo4j.vectorIndexM)
// @param efConstruction  HNSW candidates weighed per insert (neo4j.vectorIndexEfConstruction)
CREATE VECTOR INDEX kgrag_entity_embedding IF NOT EXISTS
FOR (n:Entity) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine',
  `vector.hnsw.m`: $m, `vector.hnsw.ef_construction`: $efConstruction}}
