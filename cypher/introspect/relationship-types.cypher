// Every relationship type in the database (built-in procedure, no plugin needed).
CALL db.relationshipTypes() YIELD relationshipType
RETURN relationshipType
ORDER BY relationshipType
