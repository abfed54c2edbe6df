import type { Command } from "commander";
import type { OpenKgrag } from "../open.js";

export function registerDeleteCommand(program: Command, open: OpenKgrag): void {
  program
    .command("delete")
    .description("Delete documents; the graph is rebuilt from the remaining passages with no new extraction")
    .argument("<docIds...>", "document ids (see `kgrag status`)")
    .option("-w, --workspace <dir>", "workspace folder")
    .option("--json", "print JSON")
    .action(async (docIds: string[], opts: { workspace?: string; json?: boolean }) =>
      (await import("../actions/delete.js")).deleteAction(open, docIds, opts),
    );
}
