import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { MIGRATIONS, MISSING_COLUMNS, SCHEMA_VERSION, SCHEMA_VERSION_KEY } from "./schema.js";

export type SqliteDatabase = Database.Database;

/** How long a write waits for another process's transaction before giving up. */
export const BUSY_TIMEOUT_MS = 15_000;

/**
 * Prepared statements cached by their SQL text: preparing costs more than running a small
 * statement, and indexing runs the same few statements hundreds of thousands of times.
 */
export class Sql {
  private readonly statements = new Map<string, Database.Statement>();
  /** Writes issued through this connection; with SQLite's data_version it tells when data changed. */
  private writes = 0;
  private dataVersionStatement: Database.Statement | undefined;

  constructor(readonly db: SqliteDatabase) {}

  /**
   * `pluck` statements return the first column only, `raw` ones each row as an array of its
   * columns; these are statement modes, so such statements are cached apart.
   */
  statement(sql: string, mode: boolean | "pluck" | "raw" = false): Database.Statement {
    const shape = mode === true ? "pluck" : mode || "";
    const cacheKey = shape ? `${shape}:${sql}` : sql;
    let statement = this.statements.get(cacheKey);
    if (!statement) {
      statement = this.db.prepare(sql);
      if (shape === "pluck") statement.pluck(true);
      if (shape === "raw") statement.raw(true);
      this.statements.set(cacheKey, statement);
    }
    // Every write goes through here (or a transaction), so handing out a writer counts as a write.
    if (!statement.readonly) this.writes += 1;
    return statement;
  }

  /** Counts a write made outside these statements (the schema migration at open). */
  noteWrite(): void {
    this.writes += 1;
  }

  /** True once this connection wrote: a connection that only reads must never take the write lock. */
  hasWritten(): boolean {
    return this.writes > 0;
  }

  /** Writes issued so far: a caller that noted it earlier tells from it whether this connection wrote since. */
  writeCount(): number {
    return this.writes;
  }

  /** Rows typed by the caller: SQLite hands back untyped objects, the SQL text defines their shape. */
  all<Row>(sql: string, ...params: unknown[]): Row[] {
    return this.statement(sql).all(...params) as Row[];
  }

  get<Row>(sql: string, ...params: unknown[]): Row | undefined {
    return this.statement(sql).get(...params) as Row | undefined;
  }

  run(sql: string, ...params: unknown[]): Database.RunResult {
    return this.statement(sql).run(...params);
  }

  /** Every row as an array of its columns, in SELECT order: no object per row (long reads). */
  tuples<Row extends unknown[]>(sql: string, ...params: unknown[]): Row[] {
    return this.statement(sql, "raw").all(...params) as Row[];
  }

  /** First column of every row. */
  column<Value>(sql: string, ...params: unknown[]): Value[] {
    return this.statement(sql, true).all(...params) as Value[];
  }

  /**
   * Changes whenever the database may have changed: a commit by any other connection (SQLite's
   * data_version) or any write statement or transaction on this one. Read caches key on it.
   */
  generation(): string {
    return `${this.dataVersion()}:${this.writes}`;
  }

  /**
   * Changes when another connection commits (never for this connection's own writes). Read once
   * per synchronous stretch of code (a microtask forgets it): a query's caches ask about a hundred
   * times, and no other code of this process runs before the stretch ends; another process's
   * commit in the middle of it is seen by the next stretch, as one just after the read would be.
   */
  dataVersion(): number {
    if (this.stretchDataVersion === undefined) {
      this.dataVersionStatement ??= this.db.prepare("PRAGMA data_version").pluck(true);
      this.stretchDataVersion = this.dataVersionStatement.get() as number;
      queueMicrotask(this.forgetDataVersion);
    }
    return this.stretchDataVersion;
  }

  private stretchDataVersion: number | undefined;
  private readonly forgetDataVersion = () => {
    this.stretchDataVersion = undefined;
  };

  /**
   * Runs `work` in one write transaction. IMMEDIATE takes the write lock up front, so a second
   * process waits on busy_timeout instead of failing when it tries to upgrade a read transaction.
   */
  transaction<T>(work: () => T): T {
    // Counted before and after: statements run inside `work` may write without being counted.
    this.writes += 1;
    try {
      if (this.db.inTransaction) return work();
      return this.db.transaction(work).immediate();
    } finally {
      this.writes += 1;
    }
  }
}

/**
 * A list of ids bound as ONE parameter and read back with json_each(?): no limit on the number
 * of SQL variables, and one cached statement whatever the list length.
 */
export function idList(ids: Iterable<string>): string {
  return JSON.stringify([...new Set(ids)]);
}

/** "a, b" -> "t.a, t.b": column lists reused in joins, where bare names like `key` are ambiguous. */
export function qualified(alias: string, columns: string): string {
  return columns
    .split(",")
    .map((column) => `${alias}.${column.trim()}`)
    .join(", ");
}

function hasColumn(db: SqliteDatabase, table: string, column: string): boolean {
  return db.prepare("SELECT 1 FROM pragma_table_info(?) WHERE name = ?").get(table, column) !== undefined;
}

/**
 * Opens (creating if needed) the SQLite file and brings its schema up to date; `migrated` says
 * whether that wrote (a migration may queue full-text rows for this connection to index).
 * `pageSize` applies only when the file is created here: SQLite fixes it with the first write.
 */
export function openDatabase(file: string, pageSize?: number): { db: SqliteDatabase; migrated: boolean } {
  mkdirSync(dirname(file), { recursive: true });
  const creating = !existsSync(file);
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    // Must come before journal_mode, whose switch to WAL writes the new file's header. On an
    // existing file (page 1 written) SQLite ignores it.
    if (pageSize !== undefined) db.pragma(`page_size = ${pageSize}`);
    // A new file holds nothing yet: its switch to WAL and its schema are written without waiting
    // for the disk (six fsyncs, some 15-30 ms, on every new workspace). Only a power cut in those
    // milliseconds could leave the empty file unreadable; a crashed process cannot.
    if (creating) db.pragma("synchronous = OFF");
    db.pragma("journal_mode = WAL");
    db.pragma("foreign_keys = ON");
    const migrated = migrate(db);
    // NORMAL is crash-safe in WAL mode (a power cut may lose the last commits, never corrupt).
    db.pragma("synchronous = NORMAL");
    return { db, migrated };
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Brings the schema up to date. An up-to-date file is only read, so opening a workspace to read
 * it takes no write lock and never waits for a writer; only an old file takes one to migrate.
 */
function migrate(db: SqliteDatabase): boolean {
  const hasMeta = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'")
    .pluck(true)
    .get();
  if (hasMeta) {
    const stored = db.prepare("SELECT value FROM meta WHERE key = ?").pluck(true).get(SCHEMA_VERSION_KEY);
    if (stored !== undefined && Number(stored) === SCHEMA_VERSION) return false;
  }
  return db
    .transaction(() => {
      db.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID");
      const stored = db.prepare("SELECT value FROM meta WHERE key = ?").pluck(true).get(SCHEMA_VERSION_KEY);
      const current = stored === undefined ? 0 : Number(stored);
      if (!Number.isInteger(current) || current > SCHEMA_VERSION) {
        throw new Error(
          `This workspace's SQLite file has schema version ${String(stored)}, newer than this kgrag ` +
            `supports (${SCHEMA_VERSION}). Upgrade kgrag to open it.`,
        );
      }
      if (current === SCHEMA_VERSION) return false;
      for (let step = current; step < MIGRATIONS.length; step++) {
        const missing = MISSING_COLUMNS[step];
        if (missing && !hasColumn(db, missing.table, missing.column)) db.exec(missing.ddl);
        db.exec(MIGRATIONS[step] as string);
      }
      db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)").run(
        SCHEMA_VERSION_KEY,
        String(SCHEMA_VERSION),
      );
      return true;
    })
    .immediate();
}
