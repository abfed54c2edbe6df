import type { Command } from "commander";
import type { OpenKgrag } from "../open.js";
import { UsageError } from "../usage-error.js";

export interface CommunitiesOptions {
  workspace?: string;
  level?: number;
  json?: boolean;
  rebuild?: boolean;
  fresh?: boolean;
}

export function registerCommunitiesCommand(program: Command, open: OpenKgrag): void {
  program
    .command("communities")
    .description("Show the community hierarchy (Louvain, split until max_cluster_size) with report titles")
    .option("-w, --workspace <dir>", "workspace folder (default $KGRAG_WORKSPACE or ./kgrag-data)")
    .option("--level <n>", "only communities of this level (0 = top)", parseLevel)
    .option("--json", 'print {"communities":[{id,level,parent,children,size,title,rating}]}')
    .option("--rebuild", "re-cluster the graph now and write the missing or outdated reports")
    .option(
      "--fresh",
      "with --rebuild: cluster from scratch instead of starting from the stored hierarchy (more reports change)",
    )
    .action(async (opts: CommunitiesOptions) =>
      (await import("../actions/communities.js")).communitiesAction(open, opts),
    );
}

function parseLevel(raw: string): number {
  const level = Number(raw);
  if (!Number.isInteger(level) || level < 0)
    throw new UsageError(`--level must be a whole number >= 0, got "${raw}"`);
  return level;
}
