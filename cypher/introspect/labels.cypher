// Every node label in the database (built-in procedure, no plugin needed).
CALL db.labels() YIELD label
RETURN label
ORDER BY label
