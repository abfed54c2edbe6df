import { existsSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { configFromEnv } from "../config.js";
import { type CreateKgragOptions, createKgrag, type Kgrag } from "../kgrag.js";
import type { KgragServices } from "../services.js";
import { sqliteFile } from "../storage/sqlite/sqlite-store.js";
import { noticeOfflineOnce } from "./offline-notice.js";
import { refuseMissingWorkspace } from "./open-store.js";
import { terminalProgress } from "./progress-bars.js";

export interface OpenOptions {
  workspace?: string;
  /** Only commands that write a graph create a missing workspace; the others say it is missing. */
  create?: boolean;
  /** False for commands that never call a model (status, export...): no offline notice for them. */
  usesModel?: boolean;
  /** Exact vector search instead of the HNSW files (`kgrag query --exact`). */
  exact?: boolean;
}

/** What most commands need: the services of one workspace, and a way to let go of it. */
export type OpenServices = (
  opts: OpenOptions,
) => Promise<{ services: KgragServices; close(): Promise<void> }>;
export type OpenKgrag = (opts: OpenOptions) => Promise<Kgrag>;

/** Opens a workspace for the CLI: progress bars on a terminal, and one notice when running offline. */
export function cliOpener(extra: CreateKgragOptions = {}): OpenKgrag {
  return async (opts) => {
    if (!opts.create) refuseMissingWorkspace(opts.workspace, extra);
    const kgrag = await createKgrag({
      ...extra,
      progress: extra.progress ?? terminalProgress(),
      config: {
        ...extra.config,
        ...(opts.workspace ? { workspace: opts.workspace } : {}),
        ...(opts.exact ? { vectorIndex: { kind: "exact" as const } } : {}),
      },
    });
    if (opts.usesModel !== false) noticeOfflineOnce(kgrag.services, kgrag.components.extractor.kind);
    return kgrag;
  };
}

/**
 * The embedded workspace a writing command is about to create (none exists there yet), so that a
 * run with nothing to index can take it away again: `undoCreatedWorkspace` after closing it.
 */
export function workspaceToCreate(
  workspace: string | undefined,
): { dir: string; folderExisted: boolean } | null {
  const config = configFromEnv(process.env, workspace ? { workspace } : {});
  if (config.storage !== "sqlite") return null;
  const dir = resolve(config.workspace);
  if (existsSync(sqliteFile(dir))) return null;
  return { dir, folderExisted: existsSync(dir) };
}

/** Removes what opening created: the folder when it is new, else only the store's own files. */
export function undoCreatedWorkspace(created: { dir: string; folderExisted: boolean }): void {
  if (!created.folderExisted) {
    rmSync(created.dir, { recursive: true, force: true });
    return;
  }
  const file = sqliteFile(created.dir);
  for (const path of [file, `${file}-wal`, `${file}-shm`]) rmSync(path, { force: true });
}
