import type { Command } from "commander";
import type { OpenKgrag } from "../open.js";

export interface IndexFlags {
  workspace?: string;
  json?: boolean;
  communities: boolean;
  prune?: boolean;
  dryRun?: boolean;
  meta?: string[];
}

export function registerIndexCommand(program: Command, open: OpenKgrag): void {
  program
    .command("index")
    .description(
      "Index files and folders (.txt .md .pdf .docx .html .jsonl) into the workspace's knowledge graph",
    )
    .argument("<paths...>", "files or folders (recursive)")
    .option("-w, --workspace <dir>", "workspace folder (default $KGRAG_WORKSPACE or ./kgrag-data)")
    .option("--json", "print one JSON summary object on stdout")
    .option("--no-communities", "skip building communities and reports")
    .option("--prune", "remove documents whose files are gone from the indexed folders")
    .option(
      "--meta <key=value>",
      "metadata for every document indexed, for query --filter (repeatable; a file's FILE.meta.json wins)",
      (pair: string, earlier: string[] = []) => [...earlier, pair],
    )
    .option(
      "--dry-run",
      "estimate chunks, model calls, tokens and cost per stage; call no model, write nothing",
    )
    .action(async (paths: string[], opts: IndexFlags) =>
      opts.dryRun
        ? (await import("../actions/index-dry-run.js")).indexDryRunAction(paths, opts)
        : (await import("../actions/index-command.js")).indexAction(open, paths, opts),
    );
}
