// Vector index over the RELATED relationship embedding (cosine; relationship vector indexes need
// Neo4j 5.18 or later). Created on the first vector upsert, once the dimension is known.
// @param dimension  length of the embedding vectors
CREATE VECTOR INDEX kgrag_related_embedding IF NOT EXISTS
FOR ()-[r:RELATED]-() ON r.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine'}}
