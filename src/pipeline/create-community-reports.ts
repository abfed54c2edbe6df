import pLimit from "p-limit";
import { ReportEmbeddings } from "../community/embed-reports.js";
import type { ExtractiveReportBatches, ExtractiveReportsHost } from "../community/extractive-reports.js";
import { graphIndexOf } from "../community/graph-index.js";
import { reportBudgetOf, reportContextBuilder } from "../community/report-context.js";
import type { ReportWriter } from "../community/report-writer.js";
import type { KgragServices } from "../services.js";
import type { GraphStore, GraphView, ReportSave } from "../storage/graph-store.js";
import type { CommunityRecord, CommunityReport } from "../types.js";
import { slices } from "../util/slices.js";
import { shareTurn } from "../util/turns.js";
import { loadGraphView } from "./graph-view.js";
import { stopPoint } from "./stop-point.js";
import { reportSaveSize, vectorWriteSize } from "./write-batches.js";

export interface CreateCommunityReportsResult {
  written: number;
  reused: number;
}

const STEP = "community reports";

/**
 * Index step: writes the missing or outdated reports, deepest level first, so that a parent whose
 * raw detail is over budget can use its children's finished reports (GraphRAG built every context
 * before any report existed, so that substitution never happened). Each report is saved as soon as
 * it is written: an interrupted run keeps what it finished. `graph` is the graph as the run already
 * read it.
 */
export async function createCommunityReports(
  services: KgragServices,
  writer: ReportWriter,
  signal?: AbortSignal,
  graph?: GraphView,
  offThread?: ExtractiveReportsHost,
): Promise<CreateCommunityReportsResult> {
  const { store, config, progress } = services;
  const communities = await store.listCommunities();
  const view = graph ?? (await loadGraphView(store));
  const stale = communities.filter((c) => needsReport(c, writer));
  const embeddings = await ReportEmbeddings.open(services, vectorWriteSize(services));
  const saves = new ReportSaves(store, reportSaveSize(services), embeddings);
  progress.start(STEP, stale.length);
  const batches =
    writer.kind === "extractive"
      ? offThread?.open({ graph: view, communities, budget: reportBudgetOf(config) }, stale.length)
      : undefined;
  try {
    if (batches) {
      await writeInBatches(services, batches, stale, saves, signal);
    } else {
      await writeOneByOne(services, writer, { view, communities, stale, saves }, signal);
    }
  } catch (error) {
    // The vectors answered so far are written (each beside its report's text hash); no request
    // or write outlives the step.
    await embeddings.settled();
    throw error;
  }
  progress.finish(STEP);
  await embeddings.finish(communities);
  return { written: stale.length, reused: communities.length - stale.length };
}

/**
 * Each report as soon as the reports its context may read are done: its community's stale
 * children (a context reads its children's finished reports and nothing else the run writes).
 * Waiting for a whole level held a parent back for unrelated communities of the level below while
 * chat slots idled. Up to the model's concurrency at once, deepest level first in the queue,
 * shareTurn between. After a failure no further report starts; every one started is settled
 * (kept when it finished) before the first failure is thrown.
 */
async function writeOneByOne(
  services: KgragServices,
  writer: ReportWriter,
  run: { view: GraphView; communities: CommunityRecord[]; stale: CommunityRecord[]; saves: ReportSaves },
  signal: AbortSignal | undefined,
): Promise<void> {
  const { config } = services;
  const { stale, saves } = run;
  const contextOf = reportContextBuilder(reportBudgetOf(config), graphIndexOf(run.view), run.communities);
  const limit = pLimit(config.llm?.concurrency ?? 4);
  let failed = false;
  const writeReport = async (community: CommunityRecord) => {
    if (failed) return;
    await stopPoint(signal);
    await shareTurn();
    await keepReport(services, saves, community, await writer.write(contextOf(community)));
  };
  const writes = afterStaleChildren(stale, (community) =>
    limit(writeReport, community).catch((error: unknown) => {
      failed = true;
      throw error;
    }),
  );
  // Settled, not raced: a failing (or stopped) report must not leave others writing after return.
  const outcomes = await Promise.allSettled(writes);
  // Finished reports are kept even when another one failed or the run was stopped.
  await saves.flush();
  const failure = outcomes.find((o) => o.status === "rejected");
  if (failure) throw failure.reason;
}

/**
 * Starts `write` for every stale community once the writes of its stale children succeeded
 * (a failed child's parent is not written), deepest level first among those ready together.
 * Returns every write's promise.
 */
export function afterStaleChildren(
  stale: readonly CommunityRecord[],
  write: (community: CommunityRecord) => Promise<void>,
): Promise<void>[] {
  const byId = new Map(stale.map((c) => [c.id, c]));
  const started = new Map<string, Promise<void>>();
  const start = (community: CommunityRecord): Promise<void> => {
    const known = started.get(community.id);
    if (known) return known;
    const children = community.childIds.flatMap((id) => {
      const child = byId.get(id);
      return child ? [start(child)] : [];
    });
    const written =
      children.length === 0 ? write(community) : Promise.all(children).then(() => write(community));
    started.set(community.id, written);
    return written;
  };
  // Deepest first: a community's queue place is taken when it is started, children before parents.
  return [...stale].sort((a, b) => b.level - a.level).map(start);
}

/**
 * Offline reports written elsewhere (a thread) a batch at a time, deepest level first, while this
 * thread saves them: the next batch is asked for before the last one's reports are saved, and
 * the place they are written keeps what it wrote for the parents, so it never waits on a save.
 */
async function writeInBatches(
  services: KgragServices,
  batches: ExtractiveReportBatches,
  stale: CommunityRecord[],
  saves: ReportSaves,
  signal: AbortSignal | undefined,
): Promise<void> {
  const byId = new Map(stale.map((c) => [c.id, c]));
  const deepestFirst = [...stale].sort((a, b) => b.level - a.level).map((c) => c.id);
  const asks = slices(deepestFirst, services.config.builtInThread.reportsPerRequest);
  const ask = (ids: string[] | undefined) => {
    if (!ids) return undefined;
    const written = batches.write(ids, signal);
    // A stop rejects the batch asked ahead at once: seen when (and if) it is awaited, not unhandled.
    written.catch(() => {});
    return written;
  };
  let next = ask(asks[0]);
  try {
    for (let i = 0; next; i += 1) {
      const current = next;
      await stopPoint(signal);
      next = ask(asks[i + 1]);
      const received = (await current).flatMap(({ id, report }) => {
        const community = byId.get(id);
        return community ? [{ community, report }] : [];
      });
      // All on their communities at once: should the thread die while they are saved, the
      // parents written in-process instead read every one of them.
      for (const { community, report } of received) attachReport(community, report);
      for (const { community, report } of received) await saveReport(services, saves, community, report);
    }
  } finally {
    // A stop or a failure leaves at most one batch in hand, dropped with the thread.
    try {
      await saves.flush();
    } finally {
      await batches.close();
    }
  }
}

/** Keeps a finished report on its community, where parents and embedding read it, and saves it. */
async function keepReport(
  services: KgragServices,
  saves: ReportSaves,
  community: CommunityRecord,
  report: CommunityReport,
): Promise<void> {
  attachReport(community, report);
  await saveReport(services, saves, community, report);
}

function attachReport(community: CommunityRecord, report: CommunityReport): void {
  community.report = report;
  community.reportHash = community.contentHash;
}

/** Saves a community's finished report (in the next batch of saves). */
async function saveReport(
  services: KgragServices,
  saves: ReportSaves,
  community: CommunityRecord,
  report: CommunityReport,
): Promise<void> {
  await saves.add({ id: community.id, report, reportHash: community.contentHash }, community);
  services.progress.advance(STEP);
}

/**
 * Collects finished reports and saves them a batch at a time (reportSaveSize: a commit per report
 * dominates report writing on Neo4j), one save in flight, and hands each to the report vectors.
 * A crash loses at most the batch being collected; those reports are written again by the next run.
 */
class ReportSaves {
  private pending: ReportSave[] = [];
  private readonly queue = pLimit(1);

  constructor(
    private readonly store: GraphStore,
    private readonly size: number,
    private readonly embeddings: ReportEmbeddings,
  ) {}

  async add(save: ReportSave, community: CommunityRecord): Promise<void> {
    this.pending.push(save);
    // Its vector is embedded and written while later reports are written.
    this.embeddings.add(community);
    if (this.pending.length >= this.size) await this.flush();
  }

  flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    return this.queue(() => this.store.saveCommunityReports(batch));
  }
}

/** Missing, outdated, or extractive while an LLM is available (offline reports get upgraded). */
export function needsReport(community: CommunityRecord, writer: Pick<ReportWriter, "kind">): boolean {
  if (!community.report || community.reportHash !== community.contentHash) return true;
  return writer.kind === "llm" && community.report.method === "extractive";
}
