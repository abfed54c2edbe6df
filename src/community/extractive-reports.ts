import type { GraphView } from "../storage/graph-store.js";
import type { CommunityRecord, CommunityReport } from "../types.js";
import { extractiveReport } from "./extractive-report-writer.js";
import { graphIndexOf } from "./graph-index.js";
import { type ReportBudget, type ReportContext, reportContextBuilder } from "./report-context.js";

/** What offline reports are written from: the settled graph and the whole hierarchy. */
export interface ExtractiveReportsInput {
  graph: GraphView;
  communities: CommunityRecord[];
  budget: ReportBudget;
}

export interface WrittenReport {
  id: string;
  report: CommunityReport;
}

/**
 * Writes offline reports by community id. A community's children must have their reports by then
 * (given in the input, or written by an earlier call), as the report step's deepest-first order
 * ensures; each report written is kept for the parents that read it.
 */
export class ExtractiveReportBook {
  private readonly byId: Map<string, CommunityRecord>;
  private readonly contextOf: (community: CommunityRecord) => ReportContext;

  constructor(input: ExtractiveReportsInput) {
    this.byId = new Map(input.communities.map((c) => [c.id, c]));
    this.contextOf = reportContextBuilder(input.budget, graphIndexOf(input.graph), input.communities);
  }

  write(ids: readonly string[]): WrittenReport[] {
    return ids.map((id) => {
      const community = this.byId.get(id);
      if (!community) throw new Error(`no community ${id} to write a report for`);
      const report = extractiveReport(this.contextOf(community));
      community.report = report;
      return { id, report };
    });
  }
}

/** Offline reports written a batch of communities at a time, away from the caller's thread. */
export interface ExtractiveReportBatches {
  write(ids: string[], signal?: AbortSignal): Promise<WrittenReport[]>;
  /** Ends the place where they were written (a thread), whatever is still in hand. */
  close(): Promise<void>;
}

/** Opens ExtractiveReportBatches for a run with `stale` reports to write, or none when not worth it. */
export interface ExtractiveReportsHost {
  open(input: ExtractiveReportsInput, stale: number): ExtractiveReportBatches | undefined;
}
