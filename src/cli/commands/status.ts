import type { Command } from "commander";
import type { OpenKgrag } from "../open.js";

export function registerStatusCommand(program: Command, open: OpenKgrag): void {
  program
    .command("status")
    .description("List documents with their indexing status, and the graph totals")
    .option("-w, --workspace <dir>", "workspace folder")
    .option("--json", "print JSON")
    .action(async (opts: { workspace?: string; json?: boolean }) =>
      (await import("../actions/status.js")).statusAction(open, opts),
    );
}
