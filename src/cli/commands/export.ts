import { type Command, Option } from "commander";
import { EXPORT_FORMATS, type ExportFormat } from "../../export/formats.js";
import type { OpenServices } from "../open.js";

export interface ExportOptions {
  format?: ExportFormat;
  out?: string;
  force?: boolean;
  workspace?: string;
}

/**
 * `kgrag export [--format graphml|gexf|json|neo4j-csv] [--out PATH|-] [--force]`, from either backend;
 * the format defaults to the one the --out file's extension names; standard output needs --format.
 */
export function registerExportCommand(program: Command, open: OpenServices): void {
  program
    .command("export")
    .description(
      "Write the knowledge graph as GraphML or GEXF (Gephi, yEd), JSON, or CSV files for neo4j-admin import",
    )
    .addOption(
      new Option("--format <format>", "output format (default: from the --out file's extension)").choices(
        EXPORT_FORMATS,
      ),
    )
    .option(
      "-o, --out <path>",
      'output file, or directory for neo4j-csv (default, or "-": standard output, with --format)',
    )
    .option("-f, --force", "overwrite an existing --out file (or write into a non-empty directory)")
    .option("-w, --workspace <dir>", "workspace folder")
    .action(async (opts: ExportOptions) => (await import("../actions/export.js")).exportAction(open, opts));
}
