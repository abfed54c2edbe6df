import type { Command } from "commander";
import type { OpenKgrag } from "../open.js";

export interface DeleteOptions {
  workspace?: string;
  json?: boolean;
  path?: string[];
  filter?: string[];
  dryRun?: boolean;
}

export function registerDeleteCommand(program: Command, open: OpenKgrag): void {
  program
    .command("delete")
    .description("Delete documents; the graph is rebuilt from the remaining passages with no new extraction")
    .argument("[docIds...]", "document ids (see `kgrag status`)")
    .option("--path <paths...>", "the documents read from these files, or from files under these folders")
    .option(
      "--filter <key=value...>",
      "only documents whose metadata has key=value (all given); alone, every such document",
    )
    .option("--dry-run", "list the documents that would be deleted; delete nothing")
    .option("-w, --workspace <dir>", "workspace folder")
    .option("--json", "print JSON")
    .action(async (docIds: string[], opts: DeleteOptions) =>
      (await import("../actions/delete.js")).deleteAction(open, docIds, opts),
    );
}
