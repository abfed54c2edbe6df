import type { Command } from "commander";
import type { OpenKgrag } from "../open.js";
import { printJson } from "../output.js";

export function registerDeleteCommand(program: Command, open: OpenKgrag): void {
  program
    .command("delete")
    .description("Delete documents; the graph is rebuilt from the remaining passages with no new extraction")
    .argument("<docIds...>", "document ids (see `kgrag status`)")
    .option("-w, --workspace <dir>", "workspace folder")
    .option("--json", "print JSON")
    .action(async (docIds: string[], opts: { workspace?: string; json?: boolean }) => {
      const kgrag = await open(opts);
      try {
        const result = await kgrag.deleteDocuments(docIds);
        const counts = await kgrag.services.store.counts();
        if (opts.json) printJson({ ...result, counts });
        else {
          process.stdout.write(`Deleted ${result.deleted.length} document(s).\n`);
          for (const id of result.missing) process.stdout.write(`not found: ${id}\n`);
          process.stdout.write(`Workspace: ${counts.documents} documents, ${counts.entities} entities.\n`);
        }
        if (result.missing.length) process.exitCode = 1;
      } finally {
        await kgrag.close();
      }
    });
}
