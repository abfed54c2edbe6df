import type { Kgrag } from "../../kgrag.js";
import { runQuery } from "../../query/query-engine.js";
import type { QueryResult } from "../../query/result.js";
import type { CachedJson, QueryCache } from "./query-cache.js";
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

/** Where one workspace's queries run: on the query pool when it has one, else here. */
export class WorkspaceQueries {
  constructor(
    private readonly path: string,
    private readonly kgrag: Kgrag,
    private readonly pool: QueryPool | null,
    /** Results kept per data generation (offline workspaces only: a model's usage is per call). */
    private readonly cache: QueryCache | null = null,
  ) {}

  /** The result as JSON (UTF-8 bytes), ready to send, and whether the cache had it. */
  async json(question: string, options: PlainQueryOptions): Promise<CachedJson> {
    const compute = () => this.compute(question, options);
    if (this.cache) return this.cache.json(question, options, compute);
    return { json: await compute(), hit: false };
  }

  private async compute(question: string, options: PlainQueryOptions): Promise<Buffer> {
    if (this.pool) return this.pool.run(this.path, question, options);
    return Buffer.from(JSON.stringify(await runQuery(this.kgrag.services, question, options)));
  }

  async run(question: string, options: PlainQueryOptions, events: QueryEvents = {}): Promise<QueryResult> {
    if (this.pool) {
      return JSON.parse(
        (await this.pool.run(this.path, question, options, events)).toString(),
      ) as QueryResult;
    }
    return runQuery(this.kgrag.services, question, { ...options, ...events });
  }
}
