import { existsSync, writeFileSync } from "node:fs";
import Database from "better-sqlite3";
import type { VectorNamespace } from "../../types.js";
import type { ProgressReporter } from "../../util/progress.js";
import { AnnFiles } from "./ann-file.js";
import type { HeldLock } from "./ann-locks.js";
import { AnnVectors } from "./ann-vectors.js";
import { FoldRequestSchema } from "./background-fold.js";
import { Sql } from "./connection.js";
import { sqliteFile } from "./sqlite-store.js";

/**
 * A background fold (started by startBackgroundFold): for each namespace whose fold lock it gets,
 * folds the segments into a new main file and switches the manifest to it. It opens SQLite read
 * only and writes only files in the workspace's vectors/ folder. A failure is written to
 * vectors/<namespace>.fold-error.json for `kgrag status` to show (anything else goes to
 * vectors/fold.log); the segments stay in use meanwhile and the next refresh asks again.
 */
const request = FoldRequestSchema.parse(JSON.parse(process.argv[2] ?? "null"));
const files = new AnnFiles(request.workspaceDir);

/** Tells other processes the fold is alive after every batch of rows it adds (see the lock's staleness). */
function touching(lock: HeldLock): ProgressReporter {
  return {
    start: () => lock.touch(),
    advance: () => lock.touch(),
    finish: () => lock.touch(),
    info: () => {},
  };
}

function foldOne(db: Database.Database, ns: VectorNamespace): void {
  const lock = files.tryFoldLock(ns);
  if (!lock) return;
  try {
    new AnnVectors(new Sql(db), files, request.vectorIndex, touching(lock)).foldSaved(ns);
    files.clearFoldError(ns);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (existsSync(files.folder()))
      writeFileSync(files.foldErrorPath(ns), JSON.stringify({ at: new Date().toISOString(), message }));
  } finally {
    lock.release();
  }
}

// A workspace removed since the fold was asked for is left alone (fileMustExist: nothing is created).
if (existsSync(sqliteFile(request.workspaceDir))) {
  const db = new Database(sqliteFile(request.workspaceDir), { readonly: true, fileMustExist: true });
  try {
    for (const ns of request.namespaces) foldOne(db, ns);
  } finally {
    db.close();
  }
}
