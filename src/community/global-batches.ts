import type { TiktokenEncoding } from "js-tiktoken";
import { countTokens, truncateToTokens } from "../util/tokens.js";
import { seededRandom, shuffled } from "./seeded-random.js";
import type { ReportedCommunity } from "./select-reports.js";

export interface ReportBatch {
  text: string;
  communityIds: string[];
}

/**
 * Packs reports into batches of at most `budget` tokens for the map step. The order is shuffled
 * (seeded, so reruns hit the LLM cache) so that related reports spread over batches instead of one
 * batch seeing only one theme. A report larger than a whole batch is cut to fit.
 */
export function packReportBatches(
  reports: readonly ReportedCommunity[],
  budget: number,
  seed: number,
  encoding?: TiktokenEncoding,
): ReportBatch[] {
  const batches: ReportBatch[] = [];
  let current: ReportBatch = { text: "", communityIds: [] };
  let used = 0;
  for (const community of shuffled(reports, seededRandom(seed))) {
    let block = reportBlock(community);
    let cost = countTokens(block, encoding);
    if (cost > budget) {
      block = `${truncateToTokens(block, budget - 1, encoding)}\n`;
      cost = countTokens(block, encoding);
    }
    if (used + cost > budget && current.communityIds.length) {
      batches.push(current);
      current = { text: "", communityIds: [] };
      used = 0;
    }
    current.text += block;
    current.communityIds.push(community.id);
    used += cost;
  }
  if (current.communityIds.length) batches.push(current);
  return batches;
}

function reportBlock(community: ReportedCommunity): string {
  return `=====[C:${community.id}]=====\n${community.report.markdown.trim()}\n\n`;
}
