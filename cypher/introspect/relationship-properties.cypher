// Property names and types per relationship type; relType comes back as ":`TYPE`".
CALL db.schema.relTypeProperties() YIELD relType, propertyName, propertyTypes
RETURN relType, propertyName, propertyTypes
