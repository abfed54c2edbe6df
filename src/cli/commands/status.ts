import type { Command } from "commander";

export function registerStatusCommand(program: Command): void {
  program
    .command("status")
    .description("List documents with their indexing status, and the graph totals")
    .option("-w, --workspace <dir>", "workspace folder")
    .option("--json", "print JSON")
    .action(async (opts: { workspace?: string; json?: boolean }) =>
      (await import("../actions/status.js")).statusAction(opts),
    );
}
