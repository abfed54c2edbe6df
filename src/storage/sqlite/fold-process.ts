import { existsSync, writeFileSync } from "node:fs";
import { AnnFiles } from "./ann-file.js";
import { AnnVectors } from "./ann-vectors.js";
import { FoldRequestSchema } from "./background-fold.js";
import { openDatabase, Sql } from "./connection.js";
import { sqliteFile } from "./sqlite-store.js";

/**
 * A background fold (started by startBackgroundFold): for each namespace whose fold lock it gets,
 * folds the segments into a new main file and switches the manifest to it. It reads SQLite and
 * writes only files in the workspace's vectors/ folder. A failure is written to
 * vectors/<namespace>.fold-error.json for `kgrag status` and the next fold to see; the segments
 * stay in use meanwhile.
 */
const request = FoldRequestSchema.parse(JSON.parse(process.argv[2] ?? "null"));
const files = new AnnFiles(request.workspaceDir);
// A workspace removed since the fold was asked for is left alone (opening would create it again).
if (!existsSync(sqliteFile(request.workspaceDir))) process.exit(0);
const { db } = openDatabase(sqliteFile(request.workspaceDir));
try {
  const ann = new AnnVectors(new Sql(db), files, request.vectorIndex);
  for (const ns of request.namespaces) {
    const release = files.tryFoldLock(ns);
    if (!release) continue;
    try {
      ann.foldSaved(ns);
      files.clearFoldError(ns);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      writeFileSync(files.foldErrorPath(ns), JSON.stringify({ at: new Date().toISOString(), message }));
    } finally {
      release();
    }
  }
} finally {
  db.close();
}
