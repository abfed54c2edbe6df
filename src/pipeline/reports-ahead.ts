import { setImmediate as nextTurn } from "node:timers/promises";
import { graphIndexOf } from "../community/graph-index.js";
import { type ReportContext, reportBudgetOf, reportContextBuilder } from "../community/report-context.js";
import type { ReportWriter } from "../community/report-writer.js";
import type { KgragServices } from "../services.js";
import type { CommunityReport } from "../types.js";
import { hashJson } from "../util/hash.js";
import { clusterCommunities, clusterView, warmStartOf } from "./create-communities.js";
import { needsReport } from "./create-community-reports.js";
import { loadGraphView } from "./graph-view.js";

/**
 * A report writer that can be asked ahead: `askAhead` sends a context's report request now, and a
 * later `write` of an identical context (compared by content hash) takes that answer instead of
 * asking again. A context that never comes (the graph changed meanwhile) leaves its answer unused.
 */
export class ReportsAhead implements ReportWriter {
  readonly kind: ReportWriter["kind"];
  private readonly ahead = new Map<string, Promise<CommunityReport>>();
  private readonly started: Promise<unknown>[] = [];

  constructor(private readonly writer: ReportWriter) {
    this.kind = writer.kind;
  }

  askAhead(context: ReportContext): void {
    const key = hashJson(context);
    if (this.ahead.has(key)) return;
    const report = this.writer.write(context);
    // Not thrown here: a failed answer is asked again by the write that wanted it.
    this.started.push(report.catch(() => undefined));
    this.ahead.set(key, report);
  }

  write(context: ReportContext): Promise<CommunityReport> {
    // Hashing a whole context costs about an eighth of an offline report: only when one may match.
    if (this.ahead.size === 0) return this.writer.write(context);
    const key = hashJson(context);
    const ahead = this.ahead.get(key);
    if (!ahead) return this.writer.write(context);
    this.ahead.delete(key);
    return ahead.catch(() => this.writer.write(context));
  }

  /** Waits for every request asked ahead, used or not, so none outlives the run. */
  async settled(): Promise<void> {
    await Promise.all(this.started);
  }
}

/**
 * After extraction, entity resolution waits on its embedding request (and any questions it puts
 * to the model) while every chat slot is idle; only then are communities built and their reports
 * asked for. When resolution merges nothing and no description waits for its summary, the graph
 * it leaves is the one extraction left, so the communities, and the contexts of the deepest level's
 * reports, are those computed now: up to `limit` of those reports are asked for now, beside
 * resolution. The report step then takes the answers of the contexts it builds identically; when
 * resolution did change the graph, the answers asked ahead go unused (at most `limit` requests).
 */
export async function askReportsAhead(
  services: KgragServices,
  writer: ReportsAhead,
  limit: number,
): Promise<void> {
  const { store, config } = services;
  if (limit === 0 || writer.kind !== "llm") return;
  const [entities, relationships] = await Promise.all([
    store.entitiesNeedingSummary(),
    store.relationshipsNeedingSummary(),
  ]);
  if (entities.length + relationships.length > 0) return;
  const view = await loadGraphView(store);
  // Clustered as the communities step will (warm-started alike), or the answers would go unused.
  const previous = await store.listCommunities();
  const clustered = clusterView(config, view, await warmStartOf(services, {}, previous));
  const { communities } = clusterCommunities(config, view, previous, clustered);
  const stale = communities.filter((c) => needsReport(c, writer));
  if (stale.length === 0) return;
  // Deeper levels' reports come first (a parent may use its children's): only they are known now.
  const deepest = Math.max(...stale.map((c) => c.level));
  const contextOf = reportContextBuilder(reportBudgetOf(config), graphIndexOf(view), communities);
  for (const community of stale.filter((c) => c.level === deepest).slice(0, limit)) {
    writer.askAhead(contextOf(community));
    // The first report asked frees the slot the first report past the concurrency takes: it goes
    // out before the next context holds the thread, not after all of them.
    await nextTurn();
  }
}
