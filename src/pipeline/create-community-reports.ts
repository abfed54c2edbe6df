import pLimit from "p-limit";
import { embedCommunityReports } from "../community/embed-reports.js";
import { type GraphIndex, graphIndexOf } from "../community/graph-index.js";
import {
  buildReportContext,
  type ChildReport,
  type ReportContext,
  reportTokenCounter,
} from "../community/report-context.js";
import type { ReportWriter } from "../community/report-writer.js";
import type { KgragServices } from "../services.js";
import type { GraphStore, GraphView, ReportSave } from "../storage/graph-store.js";
import type { CommunityRecord } from "../types.js";
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
): Promise<CreateCommunityReportsResult> {
  const { store, config, progress } = services;
  const communities = await store.listCommunities();
  const contextOf = reportContextBuilder(
    config,
    graphIndexOf(graph ?? (await loadGraphView(store))),
    communities,
  );
  const stale = communities.filter((c) => needsReport(c, writer));
  const limit = pLimit(config.llm?.concurrency ?? 4);
  const saves = new ReportSaves(store, reportSaveSize(services));
  progress.start(STEP, stale.length);
  for (const level of [...new Set(stale.map((c) => c.level))].sort((a, b) => b - a)) {
    const atLevel = stale.filter((c) => c.level === level);
    // Settled, not raced: a failing (or stopped) report must not leave others writing after return.
    const outcomes = await Promise.allSettled(
      atLevel.map((community) =>
        limit(async () => {
          await stopPoint(signal);
          await shareTurn();
          const report = await writer.write(contextOf(community));
          await saves.add({ id: community.id, report, reportHash: community.contentHash });
          // Parents on the next level up read it from here.
          community.report = report;
          community.reportHash = community.contentHash;
          progress.advance(STEP);
        }),
      ),
    );
    // Finished reports are kept even when another one failed or the run was stopped.
    await saves.flush();
    const failure = outcomes.find((o) => o.status === "rejected");
    if (failure) throw failure.reason;
  }
  progress.finish(STEP);
  await embedCommunityReports(services, communities, vectorWriteSize(services));
  return { written: stale.length, reused: communities.length - stale.length };
}

/**
 * Collects finished reports and saves them a batch at a time (reportSaveSize: a commit per report
 * dominates report writing on Neo4j), one save in flight. A crash loses at most the batch being
 * collected; those reports are written again by the next run.
 */
class ReportSaves {
  private pending: ReportSave[] = [];
  private readonly queue = pLimit(1);

  constructor(
    private readonly store: GraphStore,
    private readonly size: number,
  ) {}

  async add(save: ReportSave): Promise<void> {
    this.pending.push(save);
    if (this.pending.length >= this.size) await this.flush();
  }

  flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    return this.queue(() => this.store.saveCommunityReports(batch));
  }
}

/** Missing, outdated, or extractive while an LLM is available (offline reports get upgraded). */
export function needsReport(community: CommunityRecord, writer: ReportWriter): boolean {
  if (!community.report || community.reportHash !== community.contentHash) return true;
  return writer.kind === "llm" && community.report.method === "extractive";
}

/**
 * Builds the report context of any of `communities` (reading the children's finished reports as
 * they are at the call), with one token counter: every entity's and relationship's line is counted
 * once, not per community.
 */
export function reportContextBuilder(
  config: Pick<KgragServices["config"], "community" | "chunking">,
  index: GraphIndex,
  communities: CommunityRecord[],
): (community: CommunityRecord) => ReportContext {
  const budget = config.community.reportContextTokens;
  const encoding = config.chunking.encoding;
  const tokens = reportTokenCounter(budget, encoding);
  const byId = new Map(communities.map((c) => [c.id, c]));
  return (community) =>
    buildReportContext({
      community,
      index,
      childReports: finishedChildReports(community, byId),
      budget,
      encoding,
      tokens,
    });
}

function finishedChildReports(community: CommunityRecord, byId: Map<string, CommunityRecord>): ChildReport[] {
  return community.childIds.flatMap((id) => {
    const child = byId.get(id);
    return child?.report ? [{ id: child.id, entityKeys: child.entityKeys, report: child.report }] : [];
  });
}
