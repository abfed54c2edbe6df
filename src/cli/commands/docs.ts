import type { Command } from "commander";
import type { OpenKgrag } from "../open.js";

export interface DocsMetaOptions {
  workspace?: string;
  json?: boolean;
  unset?: string[];
  by?: string;
}

/** `kgrag docs ...`: work on indexed documents' records (`kgrag status` lists them). */
export function registerDocsCommand(program: Command, open: OpenKgrag): void {
  const docs = program
    .command("docs")
    .description("Edit indexed documents' metadata in place, with no extraction (meta)");
  docs
    .command("meta")
    .description(
      "Set (key=value) or remove (--unset key) a document's metadata keys for query --filter; nothing is extracted again. With neither, print its metadata",
    )
    .argument("<docId>", "document id (see `kgrag status`)")
    .argument("[pairs...]", "key=value to set (string values)")
    .option("--unset <keys...>", "keys to remove")
    .option("--by <name>", "who makes the edit, for the history (default $KGRAG_USER or the OS user)")
    .option("-w, --workspace <dir>", "workspace folder")
    .option("--json", "print JSON")
    .action(async (docId: string, pairs: string[], opts: DocsMetaOptions) =>
      (await import("../actions/docs.js")).docsMetaAction(open, docId, pairs, opts),
    );
}
