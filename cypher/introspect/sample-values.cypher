// Distinct values of some string properties over a sample of nodes with one label, used to spot
// low-cardinality properties (status, type, category) worth showing the model.
// @param label the node label
// @param properties the string property names to sample
// @param sampleSize nodes sampled (an integer)
// @param maxValues distinct values kept per property (an integer)
MATCH (n)
WHERE $label IN labels(n)
WITH n
LIMIT $sampleSize
UNWIND $properties AS property
WITH property, n[property] AS value
WHERE value IS NOT NULL
RETURN property, count(value) AS seen, count(DISTINCT value) AS distinctValues,
  collect(DISTINCT value)[0..$maxValues] AS values
