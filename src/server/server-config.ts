import { availableParallelism } from "node:os";
import { z } from "zod";
import { type Env, intFromEnv } from "../config.js";
import { ConfigError } from "../config-error.js";

/** One API key and the workspaces it may use (all of them when `workspaces` is undefined). */
export interface ApiKey {
  key: string;
  workspaces?: string[];
}

/** What queryCancelGraceMs is unless set. */
export const DEFAULT_CANCEL_GRACE_MS = 2_000;

/** What queryAffinitySlack is unless set. */
export const DEFAULT_QUERY_AFFINITY_SLACK = 8;

/** Settings of `kgrag serve`: from flags, then KGRAG_* environment variables, then these defaults. */
export const ServerConfigSchema = z.object({
  host: z.string().min(1).default("127.0.0.1"),
  port: z.number().int().min(0).max(65535).default(9621),
  /** No keys: the API is open (it binds to 127.0.0.1 by default for that reason). */
  apiKeys: z
    .array(
      z.object({
        key: z.string().min(8, "an API key (KGRAG_API_KEYS) must be at least 8 characters long"),
        workspaces: z.array(z.string()).optional(),
      }),
    )
    .default([]),
  /** Origins allowed to call the API from a browser; none means CORS stays off. */
  corsOrigins: z.array(z.string().min(1)).default([]),
  /** Requests per key (or per client address without keys) per minute. */
  rateLimitPerMinute: z.number().int().min(1).default(600),
  upload: z
    .object({
      maxFileBytes: z
        .number()
        .int()
        .min(1)
        .default(50 * 1024 * 1024),
      maxFiles: z.number().int().min(1).default(100),
      /** Largest JSON body (texts to index, queries). */
      maxBodyBytes: z
        .number()
        .int()
        .min(1024)
        .default(20 * 1024 * 1024),
    })
    .default({ maxFileBytes: 50 * 1024 * 1024, maxFiles: 100, maxBodyBytes: 20 * 1024 * 1024 }),
  graph: z
    .object({
      /** Hard cap of every list and of a neighbourhood's nodes (the contract's 2000). */
      maxNodes: z.number().int().min(1).default(2000),
      maxEdges: z.number().int().min(1).default(10000),
      maxDepth: z.number().int().min(1).default(4),
    })
    .default({ maxNodes: 2000, maxEdges: 10000, maxDepth: 4 }),
  /** Folder of the built web app served at `/` when it exists. */
  webDir: z.string().optional(),
  /** Finished jobs kept in each workspace's job list. */
  keptJobs: z.number().int().min(1).default(200),
  /**
   * How long a job waits, trying again every second, while another process holds the workspace's
   * writer lock (a `kgrag index` beside the server; the job process of a server killed mid-job,
   * which ends on its own) before it fails.
   */
  jobBusyWaitMs: z.number().int().min(0).default(120_000),
  /**
   * Processes answering offline queries (see queries/workspace-queries.ts); 0 runs every
   * query on the request loop. Default: see defaultQueryWorkers.
   */
  queryWorkers: z
    .number()
    .int()
    .min(0)
    .max(64)
    .default(() => defaultQueryWorkers(availableParallelism())),
  /**
   * Each query process answers one context-only query per mode on every served workspace before
   * its first request, so that request does not pay for loading the graph, the vectors, the
   * tokenizer and the keyword model (seconds of CPU per process on a 1,000-passage workspace).
   */
  warmQueryWorkers: z.boolean().default(true),
  /**
   * How long a query (POST /query, its stream, the Ollama chat) may take before its caller gets a
   * 504 `query_timeout` and the query is stopped; 0 sets no limit. A request may ask for less
   * (`timeoutMs` in its body), never more.
   */
  queryTimeoutMs: z.number().int().min(0).default(60_000),
  /**
   * How long a query process gets to stop a query that was cancelled (timed out, or its client
   * left) before it is killed and replaced: a process busy in synchronous work never hears the
   * cancel. The queries waiting their turn in it are sent to another process, not failed.
   */
  queryCancelGraceMs: z.number().int().min(0).default(DEFAULT_CANCEL_GRACE_MS),
  /**
   * A question asked again goes back to the query process that answered it (which kept what the
   * question cost the first time: its keywords, full-text postings, token counts) while that one
   * holds at most this many queries more than the least busy process; past it, the least busy one
   * takes it. 0 sends it back only when that process is among the least busy: under steady load
   * the processes' queues differ by a query or two most of the time, so every process then paid
   * every question's first pass.
   */
  queryAffinitySlack: z.number().int().min(0).max(1000).default(DEFAULT_QUERY_AFFINITY_SLACK),
  /**
   * Results of POST /query kept per workspace and data generation, for workspaces whose queries
   * call no model (see queries/query-cache.ts); any write to the workspace invalidates them.
   * maxEntries 0 turns the cache off.
   */
  queryCache: z
    .object({
      maxEntries: z.number().int().min(0).default(1000),
      maxBytes: z
        .number()
        .int()
        .min(1024)
        .default(64 * 1024 * 1024),
    })
    .default({ maxEntries: 1000, maxBytes: 64 * 1024 * 1024 }),
  /**
   * What GET /graph/neighbourhood keeps per workspace for the current data (see
   * graph/neighbourhood-cache.ts); any write to the workspace invalidates it. maxEntries whole
   * answers, in maxBytes at most (a hub's neighbourhood at depth 2 is some 700 KB, so maxBytes is
   * the cap that binds); and maxEdgePieces relationships as their serialised JSON, which answers
   * around other entities reuse (some 350 bytes each). 0 entries or pieces keeps none of that
   * kind. Workspaces whose store tells no data generation (Neo4j) keep nothing.
   */
  neighbourhoodCache: z
    .object({
      maxEntries: z.number().int().min(0).default(500),
      maxBytes: z
        .number()
        .int()
        .min(1024)
        .default(64 * 1024 * 1024),
      maxEdgePieces: z.number().int().min(0).default(100_000),
    })
    .default({ maxEntries: 500, maxBytes: 64 * 1024 * 1024, maxEdgePieces: 100_000 }),
  /**
   * Niceness added to the job processes' (0 to 19; higher is lower CPU priority), so an indexing
   * job yields the cores to the queries answered meanwhile. 0 keeps the server's own priority.
   */
  jobNice: z.number().int().min(0).max(19).default(10),
  /**
   * On shutdown, requests in flight get this long to finish; connections still open after it (a
   * client that stopped reading a stream) are cut, so stopping the server never hangs.
   */
  shutdownGraceMs: z.number().int().min(0).default(5_000),
});

export type ServerConfig = z.infer<typeof ServerConfigSchema>;
export type ServerConfigInput = z.input<typeof ServerConfigSchema>;

/**
 * One query process per core but one, kept for the request loop, and two from two cores on: the
 * request loop spends about a sixth of a query's CPU (5.7 of 37.6 ms per request on HotpotQA-100,
 * bench/server-load.ts), so with one query process a two-core machine answered from one core
 * while the other stood mostly idle.
 */
export function defaultQueryWorkers(cores: number): number {
  return Math.max(Math.min(2, cores), cores - 1);
}

/**
 * KGRAG_API_KEYS: keys separated by commas; a key may name its workspaces after `=`, joined by `+`
 * (`k1,k2=docs+wiki`: k1 reaches every workspace, k2 only docs and wiki).
 */
export function parseApiKeys(raw: string | undefined): ApiKey[] {
  if (!raw?.trim()) return [];
  return raw
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const at = entry.indexOf("=");
      if (at < 0) return { key: entry };
      const workspaces = entry
        .slice(at + 1)
        .split("+")
        .map((w) => w.trim())
        .filter(Boolean);
      return { key: entry.slice(0, at), workspaces };
    });
}

function listFromEnv(raw: string | undefined): string[] | undefined {
  if (!raw?.trim()) return undefined;
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The server settings: explicit ones win over KGRAG_API_KEYS, KGRAG_CORS_ORIGINS, KGRAG_RATE_LIMIT... */
export function serverConfigFrom(overrides: ServerConfigInput = {}, env: Env = process.env): ServerConfig {
  const maxUploadMb = intFromEnv(env, "KGRAG_UPLOAD_MAX_MB");
  const maxFiles = intFromEnv(env, "KGRAG_UPLOAD_MAX_FILES");
  const fromEnv: ServerConfigInput = {
    apiKeys: parseApiKeys(env.KGRAG_API_KEYS),
    corsOrigins: listFromEnv(env.KGRAG_CORS_ORIGINS),
    rateLimitPerMinute: intFromEnv(env, "KGRAG_RATE_LIMIT"),
    queryWorkers: intFromEnv(env, "KGRAG_QUERY_WORKERS"),
    queryTimeoutMs: intFromEnv(env, "KGRAG_QUERY_TIMEOUT_MS"),
    jobNice: intFromEnv(env, "KGRAG_JOB_NICE"),
    upload:
      maxUploadMb !== undefined || maxFiles !== undefined
        ? { maxFileBytes: maxUploadMb === undefined ? undefined : maxUploadMb * 1024 * 1024, maxFiles }
        : undefined,
  };
  const cacheEntries = intFromEnv(env, "KGRAG_QUERY_CACHE");
  if (cacheEntries !== undefined) fromEnv.queryCache = { maxEntries: cacheEntries };
  const merged = { ...stripUndefined(fromEnv), ...stripUndefined(overrides) };
  const parsed = ServerConfigSchema.safeParse(merged);
  if (!parsed.success) throw new ConfigError(`Invalid server settings:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
