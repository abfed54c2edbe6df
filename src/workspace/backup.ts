import { randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import Database from "better-sqlite3";
import { z } from "zod";
import { CONFIG_FILE_NAME } from "../config-file/find-config.js";
import { OptionsError } from "../options-error.js";
import { uploadFolderOf } from "../server/upload-folder.js";
import { ANN_FOLDER } from "../storage/sqlite/ann-file.js";
import { SCHEMA_VERSION, SCHEMA_VERSION_KEY } from "../storage/sqlite/schema.js";
import { SQLITE_FILE_NAME, sqliteFile } from "../storage/sqlite/sqlite-store.js";
import { parseOptions } from "../util/strict-options.js";
import { LOCK_NAME, withWorkspaceLock } from "./lock.js";
import { activeServers, isServedMarker } from "./served-marker.js";

/**
 * A backup is one SQLite file: a copy of the workspace's database made with SQLite's online backup
 * API (one consistent snapshot, whatever a writer does meanwhile), plus two tables of its own: the
 * backup's facts and the workspace's other files (its config file, the server's uploads). A restore
 * copies it into a fresh folder, writes the files out and drops the two tables.
 */
const BACKUP_TABLE = "kgrag_backup";
const FILES_TABLE = "kgrag_backup_files";
/** Bumped when the layout above changes; a restore refuses a backup of a later format. */
export const BACKUP_FORMAT = 1;
/**
 * Pages copied per backup step: all of them. A step copies inside one read transaction, so a
 * write from another process (an index job) never restarts the copy, as it would between steps.
 */
const ALL_PAGES = 0x7fffffff;

/** A backup or restore refused as asked (a Neo4j workspace, a target in the way, a newer backup): nothing changed. */
export class BackupError extends OptionsError {
  constructor(message: string) {
    super(message);
    this.name = "BackupError";
  }
}

export interface BackupOptions {
  /** Replace an existing file (a backup) or a folder that is not empty (a restore). */
  force?: boolean;
}
export const BackupOptionsSchema = z.strictObject({
  force: z.boolean().optional(),
}) satisfies z.ZodType<BackupOptions>;

export interface BackupSummary {
  file: string;
  bytes: number;
  schemaVersion: number;
  /** The workspace's other files kept in the backup, relative to the workspace, `/`-separated. */
  files: string[];
  /**
   * The config files' secret fields left out of the backup: set them again after a restore. Those
   * of kgrag.config.json as dotted paths (`llm.apiKey`), those of another config file in force
   * inside the workspace after its path (`conf/prod.json: llm.apiKey`).
   */
  secretsLeftOut: string[];
}

export interface RestoreSummary {
  workspace: string;
  schemaVersion: number;
  files: string[];
  /** When the backup was made (ISO time). */
  createdAt: string;
}

/** What to do instead of a backup on Neo4j: the data lives in the database, not in the folder. */
export const NEO4J_BACKUP_ADVICE =
  "This workspace is stored in Neo4j, which kgrag backup cannot copy: back up the database with " +
  "neo4j-admin (`neo4j-admin database dump <database>` with the database stopped, or " +
  "`neo4j-admin database backup` online on Enterprise), which keeps every workspace in it. " +
  "`kgrag export` writes the graph alone (GraphML, GEXF, JSON or neo4j-csv), without documents, " +
  "passages or vectors.";

/**
 * Writes a backup of the SQLite workspace in `workspaceDir` to `outFile`, safe while another
 * process writes the workspace. The file appears only once complete; an existing one is replaced
 * only with `force`. `configFile` is the config file in force (LoadedConfig.file): when it lies in
 * the workspace under another name than kgrag.config.json (`--config ws/prod.json`), its secrets
 * are left out as that one's are.
 */
export async function backupWorkspace(
  workspaceDir: string,
  outFile: string,
  options: BackupOptions = {},
  configFile: string | null = null,
): Promise<BackupSummary> {
  const workspace = resolve(workspaceDir);
  const out = resolve(outFile);
  if (!existsSync(sqliteFile(workspace))) {
    throw new BackupError(`${workspace} holds no kgrag workspace (no ${SQLITE_FILE_NAME} in it).`);
  }
  if (existsSync(out) && !options.force) {
    throw new BackupError(`${out} exists; give --force (force: true) to replace it.`);
  }
  if (!existsSync(dirname(out))) throw new BackupError(`The folder of ${out} does not exist.`);
  const partial = `${out}.partial-${randomBytes(4).toString("hex")}`;
  try {
    const source = new Database(sqliteFile(workspace), { readonly: true, fileMustExist: true });
    try {
      await source.backup(partial, { progress: () => ALL_PAGES });
    } finally {
      source.close();
    }
    const files = workspaceFiles(workspace, out);
    const configFiles = configFilesIn(workspace, configFile);
    const { schemaVersion, secretsLeftOut } = addBackupTables(partial, workspace, files, configFiles);
    renameSync(partial, out);
    return { file: out, bytes: statSync(out).size, schemaVersion, files, secretsLeftOut };
  } finally {
    rmSync(partial, { force: true });
  }
}

/**
 * The workspace's config files (relative, `/`-separated) whose secrets a backup leaves out: its
 * kgrag.config.json, and the config file in force when it lies in the workspace (compared by real
 * path: the workspace or the file may be named through a link).
 */
function configFilesIn(workspace: string, configFile: string | null): Set<string> {
  const paths = new Set([CONFIG_FILE_NAME]);
  if (configFile && existsSync(configFile)) {
    const realWorkspace = realpathSync(workspace);
    const real = realpathSync(configFile);
    if (isInside(real, realWorkspace)) paths.add(relative(realWorkspace, real).split(sep).join("/"));
  }
  return paths;
}

/**
 * Stores the workspace's other files and the backup's facts in the copy, the config files without
 * their secrets; returns the copy's schema version and the secret fields left out (prefixed with
 * the file's path when it is not kgrag.config.json).
 */
function addBackupTables(
  copy: string,
  workspace: string,
  files: string[],
  configFiles: Set<string>,
): { schemaVersion: number; secretsLeftOut: string[] } {
  const db = new Database(copy);
  try {
    // One self-contained file: no -wal or -shm beside it.
    db.pragma("journal_mode = DELETE");
    db.exec(`CREATE TABLE ${BACKUP_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE ${FILES_TABLE} (path TEXT PRIMARY KEY, content BLOB NOT NULL);`);
    const schemaVersion = storedSchemaVersion(db);
    const secretsLeftOut: string[] = [];
    db.transaction(() => {
      const file = db.prepare(`INSERT INTO ${FILES_TABLE} (path, content) VALUES (?, ?)`);
      for (const path of files) {
        const content = readFileSync(join(workspace, ...path.split("/")));
        if (!configFiles.has(path)) {
          file.run(path, content);
          continue;
        }
        const fields: string[] = [];
        file.run(path, configWithoutSecrets(content, join(workspace, path), fields));
        // The workspace's own config file's fields go unprefixed, as before any other was stripped.
        const named = path === CONFIG_FILE_NAME ? fields : fields.map((field) => `${path}: ${field}`);
        secretsLeftOut.push(...named);
      }
      const fact = db.prepare(`INSERT INTO ${BACKUP_TABLE} (key, value) VALUES (?, ?)`);
      fact.run("format", String(BACKUP_FORMAT));
      fact.run("createdAt", new Date().toISOString());
      fact.run("workspace", basename(workspace));
      fact.run("secretsLeftOut", JSON.stringify(secretsLeftOut));
    })();
    return { schemaVersion, secretsLeftOut };
  } finally {
    db.close();
  }
}

/** Config keys holding secrets (`apiKey`, `neo4j.password`, `clientSecret`, `accessToken`), not `maxTokens`. */
const SECRET_KEY = /(api_?keys?|password|passwd|secret|token)$/i;

/**
 * The config file with every secret field left out, at any depth (a backup file is handed around
 * more freely than the workspace it came from); `leftOut` gets their dotted paths. A file without
 * secrets is kept byte for byte.
 */
function configWithoutSecrets(content: Buffer, path: string, leftOut: string[]): Buffer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content.toString("utf8").replace(/^\uFEFF/, ""));
  } catch (error) {
    throw new BackupError(
      `${path} is not valid JSON (${(error as Error).message}), so its secrets cannot be left out of the backup: fix it first.`,
    );
  }
  const stripped = withoutSecrets(parsed, [], leftOut);
  return leftOut.length === 0 ? content : Buffer.from(`${JSON.stringify(stripped, null, 2)}\n`);
}

function withoutSecrets(value: unknown, at: string[], leftOut: string[]): unknown {
  if (Array.isArray(value)) return value.map((item, i) => withoutSecrets(item, [...at, String(i)], leftOut));
  if (value === null || typeof value !== "object") return value;
  const kept: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (SECRET_KEY.test(key)) leftOut.push([...at, key].join("."));
    else kept[key] = withoutSecrets(field, [...at, key], leftOut);
  }
  return kept;
}

/** A backup file or one being written (`x.kgrag-backup`, `x.kgrag-backup.partial-1a2b3c4d`). */
const BACKUP_FILE = /\.kgrag-backup(\.partial-[0-9a-f]+)?$/;

/**
 * The workspace's files a restore needs besides the database: everything but the database's own
 * files (copied through SQLite), the vector index files (rebuilt from the database's vectors), the
 * writer's lock, the server's job queue (a restored workspace must not run another's jobs again)
 * and backups, above all `out` being written (a backup kept in its workspace must not copy
 * itself); of the server's folder, the uploads are kept (a re-index reads them).
 */
function workspaceFiles(workspace: string, out: string): string[] {
  const leftOut = (path: string) => isLeftOut(workspace, path);
  const isBackup = (file: string) =>
    file === out || file.startsWith(`${out}.partial-`) || BACKUP_FILE.test(file);
  return filesBelow(workspace)
    .filter((file) => !isBackup(file))
    .map((file) => relative(workspace, file).split(sep).join("/"))
    .filter((path) => !leftOut(path))
    .sort();
}

/** Whether a backup leaves `path` (relative, `/`-separated) out of `workspace`'s files, and a restore refuses it. */
function isLeftOut(workspace: string, path: string): boolean {
  const uploads = relative(workspace, uploadFolderOf(workspace)).split(sep).join("/");
  return (
    [
      SQLITE_FILE_NAME,
      `${SQLITE_FILE_NAME}-wal`,
      `${SQLITE_FILE_NAME}-shm`,
      `${SQLITE_FILE_NAME}-journal`,
    ].includes(path) ||
    [ANN_FOLDER, LOCK_NAME, `${LOCK_NAME}-reclaim`].some(
      (folder) => path === folder || path.startsWith(`${folder}/`),
    ) ||
    isServedMarker(path) ||
    (path.startsWith("server/") && !path.startsWith(`${uploads}/`))
  );
}

/** Every regular file below `dir` (links are not followed). Walked by hand: `parentPath` needs Node 20.12. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesBelow(path);
    return entry.isFile() ? [path] : [];
  });
}

/**
 * Restores a backup into `workspaceDir`. A folder that is not empty is replaced only with `force`
 * (and never while a process writes it); a backup of a newer schema or format than this kgrag
 * reads is refused. The restore is built beside the target and moved into place at the end, so
 * on any error the target is as it was.
 */
export async function restoreWorkspace(
  backupFile: string,
  workspaceDir: string,
  given: BackupOptions = {},
): Promise<RestoreSummary> {
  const options = parseOptions(BackupOptionsSchema, given, { what: "restoreWorkspace" });
  const file = resolve(backupFile);
  const target = resolve(workspaceDir);
  const backup = openBackup(file);
  try {
    const facts = checkBackup(backup, file);
    checkTarget(target, file, options.force ?? false);
    const restore = async () => {
      refuseServed(target);
      const files = await restoreBeside(backup, target);
      return { workspace: target, schemaVersion: facts.schemaVersion, files, createdAt: facts.createdAt };
    };
    // An existing folder is held with the writer's lock (refused when a process writes it) from
    // here through the swap, so no index run writes the folder the restore replaces. The lock is
    // released right after the swap, before the event loop turns again.
    return existsSync(target) ? await withWorkspaceLock(target, restore) : await restore();
  } finally {
    backup.close();
  }
}

/**
 * A running `kgrag serve` keeps the target's database open: swapped under it, it would answer from
 * the old file and its later writes would be lost. Checked under the writer's lock, before the swap.
 */
function refuseServed(target: string): void {
  const [server] = existsSync(target) ? activeServers(target) : [];
  if (!server) return;
  const named = `pid ${server.pid} on ${server.host}, ${server.url}`;
  if (server.otherHost)
    throw new BackupError(
      `${target} is marked as served by kgrag serve on another host, ${server.host} (${named}), ` +
        "which cannot be checked from here: stop that server first, then restore. " +
        `If no server runs there, delete its marker ${server.marker} and restore again.`,
    );
  throw new BackupError(
    `${target} is served by kgrag serve (${named}): ` +
      "stop the server first, then restore (and start it again). " +
      `Its marker is ${server.marker}: if no server runs, delete that file.`,
  );
}

/** Builds the workspace in a folder beside `target` and moves it into place; returns the files written. */
async function restoreBeside(backup: Database.Database, target: string): Promise<string[]> {
  mkdirSync(dirname(target), { recursive: true });
  const staging = join(dirname(target), `.${basename(target)}.restoring-${randomBytes(4).toString("hex")}`);
  try {
    mkdirSync(staging);
    await backup.backup(join(staging, SQLITE_FILE_NAME), { progress: () => ALL_PAGES });
    const files = writeBackupFiles(backup, staging);
    dropBackupTables(join(staging, SQLITE_FILE_NAME));
    moveIntoPlace(staging, target);
    return files;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function openBackup(file: string): Database.Database {
  if (!existsSync(file)) throw new BackupError(`No backup file ${file}.`);
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    db.prepare("SELECT count(*) FROM sqlite_master").get();
    return db;
  } catch (error) {
    throw new BackupError(`${file} is not a kgrag backup: ${(error as Error).message}.`);
  }
}

function checkBackup(db: Database.Database, file: string): { schemaVersion: number; createdAt: string } {
  const hasTable = (name: string) =>
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
  if (!hasTable(BACKUP_TABLE) || !hasTable(FILES_TABLE) || !hasTable("meta")) {
    throw new BackupError(`${file} is not a kgrag backup (made by kgrag backup).`);
  }
  const fact = (key: string) =>
    db.prepare(`SELECT value FROM ${BACKUP_TABLE} WHERE key = ?`).pluck(true).get(key) as string | undefined;
  const format = Number(fact("format"));
  if (!Number.isInteger(format) || format > BACKUP_FORMAT) {
    throw new BackupError(
      `${file} is a backup of format ${fact("format")}, newer than this kgrag reads (${BACKUP_FORMAT}): ` +
        "upgrade kgrag to restore it.",
    );
  }
  const schemaVersion = storedSchemaVersion(db);
  if (schemaVersion > SCHEMA_VERSION) {
    throw new BackupError(
      `${file} holds a workspace of schema version ${schemaVersion}, newer than this kgrag supports ` +
        `(${SCHEMA_VERSION}): upgrade kgrag to restore it.`,
    );
  }
  const check = db.pragma("quick_check", { simple: true });
  if (check !== "ok") throw new BackupError(`${file} is damaged (SQLite quick_check: ${String(check)}).`);
  return { schemaVersion, createdAt: fact("createdAt") ?? "" };
}

function storedSchemaVersion(db: Database.Database): number {
  const stored = db.prepare("SELECT value FROM meta WHERE key = ?").pluck(true).get(SCHEMA_VERSION_KEY);
  const version = Number(stored ?? 0);
  if (!Number.isInteger(version)) throw new BackupError(`The schema version ${String(stored)} is no number.`);
  return version;
}

/**
 * A forced restore replaces a kgrag workspace only: a folder without a database (a project folder,
 * a home folder given by mistake) is refused, and so is one holding the backup being restored.
 */
function checkTarget(target: string, backupFile: string, force: boolean): void {
  if (!existsSync(target)) return;
  if (!statSync(target).isDirectory()) throw new BackupError(`${target} is a file; a workspace is a folder.`);
  if (readdirSync(target).length === 0) return;
  if (!force) {
    throw new BackupError(
      `${target} is not empty; give --force (force: true) to replace what is there with the backup.`,
    );
  }
  if (!existsSync(sqliteFile(target))) {
    throw new BackupError(
      `${target} is not a kgrag workspace (no ${SQLITE_FILE_NAME} in it): --force replaces a workspace only; ` +
        "restore into a new or empty folder instead.",
    );
  }
  if (isInside(realpathSync(backupFile), realpathSync(target))) {
    throw new BackupError(
      `${backupFile} lies inside ${target}, which the restore would replace: move the backup out of it first.`,
    );
  }
}

/** Whether `path` is `folder` or below it. */
function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

interface StoredFile {
  path: string;
  content: Buffer;
}

/**
 * The backup's files, each checked to stay inside the workspace (a crafted path could reach
 * elsewhere). Read one row at a time: uploads can be large, and all of them at once need not fit
 * in memory.
 */
function writeBackupFiles(db: Database.Database, staging: string): string[] {
  const rows = db
    .prepare(`SELECT path, content FROM ${FILES_TABLE} ORDER BY path`)
    .iterate() as IterableIterator<StoredFile>;
  const written: string[] = [];
  for (const row of rows) {
    const path = checkedFilePath(staging, row.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, row.content);
    written.push(row.path);
  }
  return written;
}

/**
 * Where a backup's file goes in `staging`: a `/`-separated path that stays inside it, and none a
 * backup leaves out (the database's files, the lock, the vector index, the job queue).
 */
function checkedFilePath(staging: string, stored: string): string {
  const outside = () =>
    new BackupError(`The backup holds a file outside the workspace (${JSON.stringify(stored)}).`);
  if (stored.includes("\\") || isAbsolute(stored) || posix.isAbsolute(stored)) throw outside();
  if (posix.normalize(stored) !== stored) throw outside();
  const path = join(staging, ...stored.split("/"));
  if (!isInside(path, staging) || path === staging) throw outside();
  if (isLeftOut(staging, stored)) {
    throw new BackupError(
      `The backup holds ${JSON.stringify(stored)}, which no backup keeps (the database's or the writer's own files).`,
    );
  }
  return path;
}

function dropBackupTables(database: string): void {
  const db = new Database(database);
  try {
    db.exec(`DROP TABLE ${FILES_TABLE}; DROP TABLE ${BACKUP_TABLE};`);
    // The dropped files (uploads can be large) would stay in the database as free pages.
    db.exec("VACUUM");
    db.pragma("journal_mode = WAL");
  } finally {
    db.close();
  }
}

/** Swaps the restored folder in; what the target held is removed only once the new one is in place. */
function moveIntoPlace(staging: string, target: string): void {
  if (!existsSync(target)) {
    renameSync(staging, target);
    return;
  }
  const previous = join(dirname(target), `.${basename(target)}.replaced-${randomBytes(4).toString("hex")}`);
  renameSync(target, previous);
  try {
    renameSync(staging, target);
  } catch (error) {
    renameSync(previous, target);
    throw error;
  }
  rmSync(previous, { recursive: true, force: true });
}
