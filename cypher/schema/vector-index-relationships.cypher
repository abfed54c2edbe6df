// Vector index over the RELATED relationship embedding (cosine; relationship vector indexes need
// Neo4j 5.18 or later). Created by the first vector upsert that leaves the namespace too large to
// rank in memory (vector-index-need.ts), with that vector's dimension.
// @param dimension  length of the embedding vectors
// @param m  HNSW links per vector (neo4j.vectorIndexM)
// @param efConstruction  HNSW candidates weighed per insert (neo4j.vectorIndexEfConstruction)
CREATE VECTOR INDEX kgrag_related_embedding IF NOT EXISTS
FOR ()-[r:RELATED]-() ON r.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine',
  `vector.hnsw.m`: $m, `vector.hnsw.ef_construction`: $efConstruction}}
