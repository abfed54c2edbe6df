import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { configFromEnv } from "../config.js";
import { createKgrag, type Kgrag } from "../kgrag.js";
import { sqliteFile } from "../storage/sqlite/sqlite-store.js";
import { refuseFileAsWorkspace } from "../workspace/workspace-folder.js";
import { ApiError } from "./errors.js";
import { GraphReads } from "./graph/graph-reads.js";
import { NeighbourhoodCache, type NeighbourhoodCacheSettings } from "./graph/neighbourhood-cache.js";
import { JobQueue } from "./jobs/job-queue.js";
import type { JobRunner } from "./jobs/job-runner.js";
import { QueryCache, type QueryCacheSettings } from "./queries/query-cache.js";
import { QueryPool } from "./queries/query-pool.js";
import { queriesNeedNoModel, WorkspaceQueries } from "./queries/workspace-queries.js";
import { type ApiKey, DEFAULT_QUERY_AFFINITY_SLACK } from "./server-config.js";
import { uploadFolderOf } from "./upload-folder.js";

/** One workspace served: its engine (for reads and queries), its job queue and its upload folder. */
export interface ServedWorkspace {
  id: string;
  path: string;
  kgrag: Kgrag;
  /** Where its queries run: on the query workers when they need no model, else on the request loop. */
  queries: WorkspaceQueries;
  jobs: JobQueue;
  /** Graph views for the API, forgotten whenever a job ends. */
  graph: GraphReads;
  /** The server's own files in the workspace folder: jobs, their inputs, uploads. */
  serverFolder: string;
  uploadFolder: string;
}

/**
 * The workspace folders to serve: each one given, or, for a folder that is no workspace itself but
 * holds workspaces, each of those. Nothing given: KGRAG_WORKSPACE or ./kgrag-data (created).
 */
export function workspaceFolders(given: string[], env: NodeJS.ProcessEnv): string[] {
  if (given.length === 0) return [resolve(configFromEnv(env).workspace)];
  return given.flatMap((dir) => {
    refuseFileAsWorkspace(dir, "--workspace", "give a workspace folder (or a folder of workspaces)");
    const full = resolve(dir);
    if (existsSync(sqliteFile(full)) || !existsSync(full)) return [full];
    const inner = readdirSync(full)
      .map((name) => join(full, name))
      .filter((p) => statSync(p).isDirectory() && existsSync(sqliteFile(p)));
    return inner.length > 0 ? inner.sort() : [full];
  });
}

/** Ids from folder names, made unique with a numeric suffix. */
function uniqueIds(folders: string[]): string[] {
  const seen = new Map<string, number>();
  return folders.map((folder) => {
    const base = basename(folder).replace(/[^\w.-]+/g, "-") || "workspace";
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base}-${n}`;
  });
}

/** A result cache for a workspace whose store tells its data generation, unless turned off. */
function queryCacheOf(kgrag: Kgrag, settings: QueryCacheSettings): QueryCache | null {
  const { store } = kgrag.services;
  if (settings.maxEntries === 0 || !store.dataGeneration) return null;
  return new QueryCache(settings, () => store.dataGeneration?.() ?? "");
}

/** A neighbourhood cache for a workspace whose store tells its data generation, unless turned off. */
function neighbourhoodCacheOf(kgrag: Kgrag, settings: NeighbourhoodCacheSettings): NeighbourhoodCache | null {
  const { store } = kgrag.services;
  const keepsNothing = settings.maxEntries === 0 && settings.maxEdgePieces === 0;
  if (keepsNothing || !store.dataGeneration) return null;
  return new NeighbourhoodCache(settings, () => store.dataGeneration?.() ?? "");
}

export class WorkspaceRegistry {
  private constructor(
    readonly all: ServedWorkspace[],
    private readonly runner: JobRunner,
    /** The query processes of the workspaces that call no model, if any (diagnostics and tests). */
    readonly queryPool: QueryPool | null,
  ) {}

  static async open(
    folders: string[],
    options: {
      env: NodeJS.ProcessEnv;
      runner: JobRunner;
      keptJobs: number;
      jobBusyWaitMs: number;
      queryWorkers: number;
      warmQueryWorkers: boolean;
      /** See ServerConfig.queryTimeoutMs, queryCancelGraceMs and queryAffinitySlack. */
      queryTimeoutMs: number;
      queryCancelGraceMs: number;
      queryAffinitySlack?: number;
      queryCache: QueryCacheSettings;
      neighbourhoodCache: NeighbourhoodCacheSettings;
    },
  ): Promise<WorkspaceRegistry> {
    const ids = uniqueIds(folders);
    const opened: ServedWorkspace[] = [];
    // Started after the workspaces opened (and any schema upgrade ran), so workers only read.
    let pool: QueryPool | null = null;
    try {
      for (const [i, folder] of folders.entries()) {
        const kgrag = await createKgrag({ env: options.env, config: { workspace: folder } });
        const serverFolder = join(folder, "server");
        const graph = new GraphReads(
          kgrag.services.store,
          neighbourhoodCacheOf(kgrag, options.neighbourhoodCache),
        );
        const jobs = new JobQueue(
          folder,
          serverFolder,
          options.runner,
          options.keptJobs,
          options.jobBusyWaitMs,
        );
        jobs.onFinished(() => graph.forget());
        opened.push({
          id: ids[i] as string,
          path: folder,
          kgrag,
          queries: new WorkspaceQueries(folder, kgrag, { timeoutMs: options.queryTimeoutMs }),
          serverFolder,
          uploadFolder: uploadFolderOf(folder),
          jobs,
          graph,
        });
      }
      const local = opened.filter((w) => queriesNeedNoModel(w.kgrag));
      if (options.queryWorkers > 0 && local.length > 0) {
        const workspaces = local.map((w) => w.path);
        pool = new QueryPool(
          options.queryWorkers,
          { env: { ...options.env }, workspaces, warmUp: options.warmQueryWorkers },
          {
            cancelGraceMs: options.queryCancelGraceMs,
            affinitySlack: options.queryAffinitySlack ?? DEFAULT_QUERY_AFFINITY_SLACK,
          },
        );
      }
      for (const w of local)
        w.queries = new WorkspaceQueries(w.path, w.kgrag, {
          pool,
          cache: queryCacheOf(w.kgrag, options.queryCache),
          timeoutMs: options.queryTimeoutMs,
        });
    } catch (error) {
      for (const w of opened) await w.kgrag.close();
      throw error;
    }
    return new WorkspaceRegistry(opened, options.runner, pool);
  }

  /** The workspace a request names (header or query), else the first one the key may use. */
  pick(requested: string | undefined, key: ApiKey | undefined): ServedWorkspace {
    const allowed = (w: ServedWorkspace) => !key?.workspaces || key.workspaces.includes(w.id);
    if (requested === undefined || requested === "") {
      const first = this.all.find(allowed);
      if (!first)
        throw new ApiError(403, "forbidden", "This API key may not use any workspace of this server");
      return first;
    }
    const found = this.all.find((w) => w.id === requested);
    if (!found)
      throw new ApiError(
        404,
        "workspace_not_found",
        `No workspace "${requested}"; known: ${this.visible(key).join(", ")}`,
      );
    if (!allowed(found))
      throw new ApiError(403, "forbidden", `This API key may not use workspace "${requested}"`);
    return found;
  }

  visible(key: ApiKey | undefined): string[] {
    return this.all.filter((w) => !key?.workspaces || key.workspaces.includes(w.id)).map((w) => w.id);
  }

  async close(): Promise<void> {
    for (const w of this.all) {
      await w.jobs.close();
      await w.kgrag.close();
    }
    await this.queryPool?.close();
    await this.runner.close();
  }
}
