import pLimit from "p-limit";
import { embedCommunityReports } from "../community/embed-reports.js";
import { GraphIndex } from "../community/graph-index.js";
import { buildReportContext, type ChildReport } from "../community/report-context.js";
import type { ReportWriter } from "../community/report-writer.js";
import type { KgragServices } from "../services.js";
import type { CommunityRecord } from "../types.js";
import { stopPoint } from "./stop-point.js";

export interface CreateCommunityReportsResult {
  written: number;
  reused: number;
}

const STEP = "community reports";

/**
 * Index step: writes the missing or outdated reports, deepest level first, so that a parent whose
 * raw detail is over budget can use its children's finished reports (GraphRAG built every context
 * before any report existed, so that substitution never happened). Each report is saved as soon as
 * it is written: an interrupted run keeps what it finished.
 */
export async function createCommunityReports(
  services: KgragServices,
  writer: ReportWriter,
  signal?: AbortSignal,
): Promise<CreateCommunityReportsResult> {
  const { store, config, progress } = services;
  const [communities, entities, relationships] = await Promise.all([
    store.listCommunities(),
    store.listEntities(),
    store.listRelationships(),
  ]);
  const index = new GraphIndex(entities, relationships);
  const byId = new Map(communities.map((c) => [c.id, c]));
  const stale = communities.filter((c) => needsReport(c, writer));
  const limit = pLimit(config.llm?.concurrency ?? 4);
  progress.start(STEP, stale.length);
  for (const level of [...new Set(stale.map((c) => c.level))].sort((a, b) => b - a)) {
    const atLevel = stale.filter((c) => c.level === level);
    // Settled, not raced: a failing (or stopped) report must not leave others writing after return.
    const outcomes = await Promise.allSettled(
      atLevel.map((community) =>
        limit(async () => {
          await stopPoint(signal);
          const context = buildReportContext({
            community,
            index,
            childReports: finishedChildReports(community, byId),
            budget: config.community.reportContextTokens,
            encoding: config.chunking.encoding,
          });
          const report = await writer.write(context);
          await store.saveCommunityReport(community.id, report, community.contentHash);
          // Parents on the next level up read it from here.
          community.report = report;
          community.reportHash = community.contentHash;
          progress.advance(STEP);
        }),
      ),
    );
    const failure = outcomes.find((o) => o.status === "rejected");
    if (failure) throw failure.reason;
  }
  progress.finish(STEP);
  await embedCommunityReports(services, communities);
  return { written: stale.length, reused: communities.length - stale.length };
}

/** Missing, outdated, or extractive while an LLM is available (offline reports get upgraded). */
function needsReport(community: CommunityRecord, writer: ReportWriter): boolean {
  if (!community.report || community.reportHash !== community.contentHash) return true;
  return writer.kind === "llm" && community.report.method === "extractive";
}

function finishedChildReports(community: CommunityRecord, byId: Map<string, CommunityRecord>): ChildReport[] {
  return community.childIds.flatMap((id) => {
    const child = byId.get(id);
    return child?.report ? [{ id: child.id, entityKeys: child.entityKeys, report: child.report }] : [];
  });
}
