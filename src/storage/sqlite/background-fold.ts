import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { setPriority } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { type VectorIndexConfig, VectorIndexSchema } from "../../config.js";
import type { VectorNamespace } from "../../types.js";
import { childEntry } from "../../util/child-entry.js";
import { ANN_FOLDER } from "./ann-file.js";

/** What the fold process is told, as one JSON argument. */
export const FoldRequestSchema = z.object({
  workspaceDir: z.string().min(1),
  namespaces: z.array(z.enum(["chunks", "entities", "relationships", "communities"])).min(1),
  vectorIndex: VectorIndexSchema,
});
export type FoldRequest = z.infer<typeof FoldRequestSchema>;

/** fold-process beside this module (see childEntry). */
const foldEntry = () => childEntry(import.meta.url, "fold-process");

/** A fold process a refresh started, and the namespaces it folds. */
export interface BackgroundFold {
  pid: number;
  namespaces: VectorNamespace[];
}

/**
 * Starts a process of its own that folds the namespaces' segments into their main files, at low
 * priority, and does not wait for it: it outlives a CLI command that started it. Returns its pid,
 * or undefined when it could not start (the next refresh that finds the fold due tries again, and
 * the writer folds itself once segments pass maxSegmentsWhileFolding).
 */
export function startBackgroundFold(
  workspaceDir: string,
  namespaces: VectorNamespace[],
  vectorIndex: VectorIndexConfig,
): number | undefined {
  const request: FoldRequest = { workspaceDir, namespaces, vectorIndex };
  const entry = foldEntry();
  let log: number | undefined;
  try {
    // What the process prints (a failure to start, a crash) is kept beside the files it folds.
    log = openSync(join(workspaceDir, ANN_FOLDER, "fold.log"), "a");
    const child = spawn(process.execPath, [...entry.execArgv, entry.file, JSON.stringify(request)], {
      detached: true,
      stdio: ["ignore", log, log],
    });
    child.on("error", () => {});
    child.unref();
    if (child.pid === undefined) return undefined;
    try {
      setPriority(child.pid, vectorIndex.foldNice);
    } catch {
      // Lowering priority is a courtesy to the other work; the fold runs all the same.
    }
    return child.pid;
  } catch {
    return undefined;
  } finally {
    if (log !== undefined) closeSync(log);
  }
}
