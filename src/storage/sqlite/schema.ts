/**
 * The embedded store's tables. Bump SCHEMA_VERSION and add a step to MIGRATIONS whenever the DDL
 * changes, so that workspaces written by an older kgrag keep opening.
 */
export const SCHEMA_VERSION = 8;

/** Meta key holding the schema version (a reserved key in the shared meta table). */
export const SCHEMA_VERSION_KEY = "sqlite.schemaVersion";

const FTS_TOKENIZER = "tokenize = 'unicode61 remove_diacritics 2'";

/**
 * Version 1, as first shipped (version 2 rebuilds `relationships`).
 * Chunks and entities carry an INTEGER PRIMARY KEY `seq` besides their text key: it is the stable rowid
 * that links them to their full-text rows, so updating or deleting one FTS row is an index lookup.
 */
const SCHEMA_V1 = `
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS documents (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  path TEXT,
  content_hash TEXT NOT NULL,
  status TEXT NOT NULL,
  error TEXT,
  metadata TEXT NOT NULL,
  chunk_count INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_by_status ON documents(status);

CREATE TABLE IF NOT EXISTS chunks (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  text TEXT NOT NULL,
  tokens INTEGER NOT NULL,
  start_offset INTEGER NOT NULL,
  end_offset INTEGER NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',
  error TEXT,
  raw_output TEXT
);
CREATE INDEX IF NOT EXISTS chunks_by_doc ON chunks(doc_id, idx);
CREATE INDEX IF NOT EXISTS chunks_by_status ON chunks(status);

CREATE TABLE IF NOT EXISTS entity_mentions (
  seq INTEGER PRIMARY KEY,
  chunk_id TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  entity_key TEXT NOT NULL,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  description TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS entity_mentions_by_chunk ON entity_mentions(chunk_id);
CREATE INDEX IF NOT EXISTS entity_mentions_by_key ON entity_mentions(entity_key);

CREATE TABLE IF NOT EXISTS relationship_mentions (
  seq INTEGER PRIMARY KEY,
  chunk_id TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  relationship_key TEXT NOT NULL,
  source_key TEXT NOT NULL,
  target_key TEXT NOT NULL,
  description TEXT NOT NULL,
  keywords TEXT NOT NULL,
  strength REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS relationship_mentions_by_chunk ON relationship_mentions(chunk_id);
CREATE INDEX IF NOT EXISTS relationship_mentions_by_key ON relationship_mentions(relationship_key);

CREATE TABLE IF NOT EXISTS entities (
  seq INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  description TEXT NOT NULL,
  fragments TEXT NOT NULL,
  source_chunk_ids TEXT NOT NULL,
  fragments_hash TEXT NOT NULL,
  needs_summary INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS entities_needing_summary ON entities(key) WHERE needs_summary = 1;

CREATE TABLE IF NOT EXISTS relationships (
  key TEXT PRIMARY KEY,
  source_key TEXT NOT NULL,
  target_key TEXT NOT NULL,
  description TEXT NOT NULL,
  fragments TEXT NOT NULL,
  keywords TEXT NOT NULL,
  weight REAL NOT NULL,
  source_chunk_ids TEXT NOT NULL,
  fragments_hash TEXT NOT NULL,
  needs_summary INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS relationships_by_source ON relationships(source_key, target_key);
CREATE INDEX IF NOT EXISTS relationships_by_target ON relationships(target_key);
CREATE INDEX IF NOT EXISTS relationships_needing_summary ON relationships(key) WHERE needs_summary = 1;

CREATE TABLE IF NOT EXISTS vectors (
  namespace TEXT NOT NULL,
  id TEXT NOT NULL,
  dim INTEGER NOT NULL,
  text_hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (namespace, id)
);

-- Bumped by every vector write, so any connection can tell that its in-memory matrix is stale.
CREATE TABLE IF NOT EXISTS vector_generations (
  namespace TEXT PRIMARY KEY,
  generation INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS llm_cache (
  stage TEXT NOT NULL,
  model TEXT NOT NULL,
  prompt_hash TEXT NOT NULL,
  response TEXT NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  PRIMARY KEY (stage, model, prompt_hash)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS history (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  action TEXT NOT NULL,
  old_description TEXT,
  new_description TEXT,
  cause TEXT NOT NULL,
  at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS history_by_key ON history(key, id);

CREATE TABLE IF NOT EXISTS communities (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  level INTEGER NOT NULL,
  parent_id TEXT,
  child_ids TEXT NOT NULL,
  entity_keys TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  report TEXT,
  report_hash TEXT
);

-- Rows written since the last full-text flush; indexed in one batch before the next search.
CREATE TABLE IF NOT EXISTS fts_pending (
  kind TEXT NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (kind, seq)
) WITHOUT ROWID;

-- Contentless: the segmented text is only needed for matching, the original lives in chunks/entities.
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  text, content = '', contentless_delete = 1, ${FTS_TOKENIZER}
);
CREATE VIRTUAL TABLE IF NOT EXISTS entities_fts USING fts5(
  name, description, content = '', contentless_delete = 1, ${FTS_TOKENIZER}
);
`;

/** Porter stemming on top, so "directed" meets "direct" in relationship descriptions and keywords. */
const RELATIONSHIP_FTS_TOKENIZER = "tokenize = 'porter unicode61 remove_diacritics 2'";

const RELATIONSHIP_VALUES =
  "source_key, target_key, description, fragments, keywords, weight, source_chunk_ids, " +
  "fragments_hash, needs_summary";

/**
 * Version 2: relationships get a `seq` rowid (like chunks and entities) and a full-text table.
 * The table is rebuilt keeping every row and its rowid; every relationship is queued, so an old
 * workspace becomes searchable on first use. Safe to run again on a version 2 file (its rowid is
 * its seq, and the full-text table is emptied and requeued).
 */
const SCHEMA_V2 = `
ALTER TABLE relationships RENAME TO relationships_v1;
CREATE TABLE relationships (
  seq INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  source_key TEXT NOT NULL,
  target_key TEXT NOT NULL,
  description TEXT NOT NULL,
  fragments TEXT NOT NULL,
  keywords TEXT NOT NULL,
  weight REAL NOT NULL,
  source_chunk_ids TEXT NOT NULL,
  fragments_hash TEXT NOT NULL,
  needs_summary INTEGER NOT NULL
);
INSERT INTO relationships (seq, key, ${RELATIONSHIP_VALUES})
  SELECT rowid, key, ${RELATIONSHIP_VALUES} FROM relationships_v1 ORDER BY rowid;
DROP TABLE relationships_v1;
CREATE INDEX relationships_by_source ON relationships(source_key, target_key);
CREATE INDEX relationships_by_target ON relationships(target_key);
CREATE INDEX relationships_needing_summary ON relationships(key) WHERE needs_summary = 1;

CREATE VIRTUAL TABLE IF NOT EXISTS relationships_fts USING fts5(
  text, content = '', contentless_delete = 1, ${RELATIONSHIP_FTS_TOKENIZER}
);
INSERT INTO relationships_fts (relationships_fts) VALUES ('delete-all');
INSERT OR IGNORE INTO fts_pending (kind, seq) SELECT 'relationship', seq FROM relationships;
`;

/**
 * Version 3: the other names an entity was merged from (entity resolution and curation), in a table
 * of their own so that running the step again on a version 3 file changes nothing.
 */
const SCHEMA_V3 = `
CREATE TABLE IF NOT EXISTS entity_aliases (
  key TEXT PRIMARY KEY,
  aliases TEXT NOT NULL
) WITHOUT ROWID;
`;

/**
 * Version 4: each vector row carries the namespace generation that last wrote it, and deletes
 * leave the row's key in vector_removals, so an approximate index file saved at generation G is
 * brought up to date from the rows written after G (see ann-vectors.ts). The rowid is the key in
 * the index file; an upsert keeps it (ON CONFLICT DO UPDATE), a delete records it.
 */
const VECTOR_GEN_COLUMN = "ALTER TABLE vectors ADD COLUMN gen INTEGER NOT NULL DEFAULT 0;";
const SCHEMA_V4 = `
CREATE INDEX IF NOT EXISTS vectors_by_gen ON vectors(namespace, gen);
CREATE TABLE IF NOT EXISTS vector_removals (
  namespace TEXT NOT NULL,
  key INTEGER NOT NULL,
  gen INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS vector_removals_by_gen ON vector_removals(namespace, gen);
`;

/**
 * Version 5: Small-to-Big's sentence units of every chunk (see fts.ts, searchChunkUnits). Every
 * chunk is queued, so an old workspace gets its units at the next write (readers match passages
 * until then). Safe to run again: the units are emptied and requeued.
 */
const SCHEMA_V5 = `
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_units_fts USING fts5(
  text, content = '', contentless_delete = 1, ${FTS_TOKENIZER}
);
INSERT INTO chunk_units_fts (chunk_units_fts) VALUES ('delete-all');
INSERT OR IGNORE INTO fts_pending (kind, seq) SELECT 'chunk', seq FROM chunks;
`;

/**
 * Version 6: a log of changed relationship keys, written by triggers, so a reader's in-memory
 * adjacency (relationship-cache.ts) catches up on another process's commits instead of re-reading
 * every relationship. Writers empty it after a run (pruneRelationshipChanges); the meta key says
 * up to where, so a reader that missed pruned rows rebuilds. Safe to run again.
 */
export const RELATIONSHIP_CHANGES_PRUNED_KEY = "sqlite.relationshipChangesPrunedThrough";
/** The triggers that log every written relationship key (versions 6 and 7). */
const LOG_TRIGGERS = `
CREATE TRIGGER IF NOT EXISTS relationships_log_insert AFTER INSERT ON relationships
BEGIN INSERT INTO relationship_changes (key) VALUES (new.key); END;
CREATE TRIGGER IF NOT EXISTS relationships_log_update AFTER UPDATE ON relationships
BEGIN INSERT INTO relationship_changes (key) VALUES (new.key); END;
CREATE TRIGGER IF NOT EXISTS relationships_log_delete AFTER DELETE ON relationships
BEGIN INSERT INTO relationship_changes (key) VALUES (old.key); END;
`;

const SCHEMA_V6 = `
CREATE TABLE IF NOT EXISTS relationship_changes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  key TEXT NOT NULL
);
${LOG_TRIGGERS}`;

/**
 * Version 7: the change log without AUTOINCREMENT, whose bookkeeping (a sqlite_sequence update
 * for every logged row) made each new relationship about half again as dear to insert. Ids
 * still only rise: pruning keeps the newest row (RelationshipTable.pruneChangeLog), and the
 * highest id handed out so far is kept here as a row of its own (an empty key, which names no
 * relationship and so changes nothing when a reader applies it).
 */
const SCHEMA_V7 = `
DROP TRIGGER relationships_log_insert;
DROP TRIGGER relationships_log_update;
DROP TRIGGER relationships_log_delete;
CREATE TABLE relationship_changes_v7 (id INTEGER PRIMARY KEY, key TEXT NOT NULL);
INSERT INTO relationship_changes_v7 (id, key) SELECT id, key FROM relationship_changes;
INSERT OR IGNORE INTO relationship_changes_v7 (id, key)
  SELECT seq, '' FROM sqlite_sequence WHERE name = 'relationship_changes' AND seq > 0;
DROP TABLE relationship_changes;
ALTER TABLE relationship_changes_v7 RENAME TO relationship_changes;
${LOG_TRIGGERS}`;

/**
 * Version 8: no DDL. A vector row may now hold the sparse form of its vector (vector-blob.ts), which
 * an older kgrag would read as a shorter dense vector: the version keeps it from opening the file.
 * Rows written before stay dense and read as they are.
 */
const SCHEMA_V8 = "-- vectors.vector: dense or sparse Float32 form (src/storage/vectors/vector-blob.ts)";

/** DDL applied to reach each version; index i brings a store from version i to i + 1. */
export const MIGRATIONS: readonly string[] = [
  SCHEMA_V1,
  SCHEMA_V2,
  SCHEMA_V3,
  SCHEMA_V4,
  SCHEMA_V5,
  SCHEMA_V6,
  SCHEMA_V7,
  SCHEMA_V8,
];

/**
 * Steps that DDL alone cannot make safe to run twice (SQLite has no ADD COLUMN IF NOT EXISTS),
 * run before MIGRATIONS[i] when the column is missing.
 */
export const MISSING_COLUMNS: Readonly<Record<number, { table: string; column: string; ddl: string }>> = {
  3: { table: "vectors", column: "gen", ddl: VECTOR_GEN_COLUMN },
};
