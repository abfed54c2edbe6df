import type { Kgrag } from "../../kgrag.js";
import { runQuery } from "../../query/query-engine.js";
import type { QueryResult } from "../../query/result.js";
import type { CachedJson, QueryCache } from "./query-cache.js";
import { effectiveTimeoutMs, type QueryCall, withinLimits } from "./query-limits.js";
import type { PlainQueryOptions } from "./query-messages.js";
import type { QueryEvents, QueryPool } from "./query-pool.js";

/**
 * A workspace whose queries call no model or remote service (offline keywords and answers, the
 * hashing embedder, no reranker): its queries are CPU work only, and may run on query workers,
 * several at once, leaving the request loop free. One that calls a model mostly waits on it, and
 * its queries stay on the request loop, where the workspace's one rate limiter, LLM cache and
 * usage ledger live.
 */
export function queriesNeedNoModel(kgrag: Kgrag): boolean {
  const { chat, embedder, reranker } = kgrag.services;
  return !chat && embedder.kind === "hashing" && !reranker;
}

/** Where a workspace's queries run, what they keep, and how long they may take. */
export interface WorkspaceQuerySettings {
  /** The query processes, or null to answer on the request loop. */
  pool?: QueryPool | null;
  /** Results kept per data generation (offline workspaces only: a model's usage is per call). */
  cache?: QueryCache | null;
  /** The server's queryTimeoutMs: 0 sets no limit. */
  timeoutMs?: number;
}

/**
 * Where one workspace's queries run: on the query pool when it has one, else here. Each query is
 * stopped when its time limit passes or its caller goes away (see withinLimits).
 */
export class WorkspaceQueries {
  private readonly pool: QueryPool | null;
  private readonly cache: QueryCache | null;
  private readonly timeoutMs: number;

  constructor(
    private readonly path: string,
    private readonly kgrag: Kgrag,
    settings: WorkspaceQuerySettings = {},
  ) {
    this.pool = settings.pool ?? null;
    this.cache = settings.cache ?? null;
    this.timeoutMs = settings.timeoutMs ?? 0;
  }

  /** The result as JSON (UTF-8 bytes), ready to send, and whether the cache had it. */
  json(question: string, options: PlainQueryOptions, call: QueryCall = {}): Promise<CachedJson> {
    return this.withinLimits(call, async (signal) => {
      const compute = (shared: AbortSignal) => this.compute(question, options, shared);
      // The cache shares one computation between identical requests: it stops when all of them left.
      if (this.cache) return this.cache.json(question, options, compute, signal);
      return { json: await compute(signal), hit: false };
    });
  }

  run(
    question: string,
    options: PlainQueryOptions,
    events: QueryEvents = {},
    call: QueryCall = {},
  ): Promise<QueryResult> {
    return this.withinLimits(call, async (signal) => {
      // A caller that has gone (or timed out) hears nothing more: its stream is closed.
      const heard = whileWanted(events, signal);
      if (this.pool) {
        const json = await this.pool.run(this.path, question, options, heard, signal);
        return JSON.parse(json.toString()) as QueryResult;
      }
      return runQuery(this.kgrag.services, question, { ...options, ...heard, signal });
    });
  }

  private async compute(question: string, options: PlainQueryOptions, signal: AbortSignal): Promise<Buffer> {
    if (this.pool) return this.pool.run(this.path, question, options, {}, signal);
    return Buffer.from(JSON.stringify(await runQuery(this.kgrag.services, question, { ...options, signal })));
  }

  private withinLimits<T>(call: QueryCall, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withinLimits(effectiveTimeoutMs(this.timeoutMs, call.timeoutMs), call.clientGone, work);
  }
}

/** The caller's events, dropped once the signal aborted. */
function whileWanted(events: QueryEvents, signal: AbortSignal): QueryEvents {
  const { onContext, onToken } = events;
  const wanted: QueryEvents = {};
  if (onContext)
    wanted.onContext = (context) => {
      if (!signal.aborted) onContext(context);
    };
  if (onToken)
    wanted.onToken = (text) => {
      if (!signal.aborted) onToken(text);
    };
  return wanted;
}
