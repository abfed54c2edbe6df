import { type Command, Option } from "commander";
import { EXPORT_FORMATS, type ExportFormat, exportGraph } from "../../export/export-graph.js";
import type { KgragServices } from "../../services.js";
import { UsageError } from "../output.js";
import { checkOutPath } from "../output-path.js";

type OpenServices = (opts: {
  workspace?: string;
}) => Promise<{ services: KgragServices; close(): Promise<void> }>;

interface ExportOptions {
  format: ExportFormat;
  out?: string;
  force?: boolean;
  workspace?: string;
}

/** `kgrag export --format graphml|gexf|json|neo4j-csv [--out PATH] [--force]`, from either backend. */
export function registerExportCommand(program: Command, open: OpenServices): void {
  program
    .command("export")
    .description(
      "Write the knowledge graph as GraphML or GEXF (Gephi, yEd), JSON, or CSV files for neo4j-admin import",
    )
    .addOption(new Option("--format <format>", "output format").choices(EXPORT_FORMATS).makeOptionMandatory())
    .option("-o, --out <path>", "output file, or directory for neo4j-csv (default: standard output)")
    .option("-f, --force", "overwrite an existing --out file (or write into a non-empty directory)")
    .option("-w, --workspace <dir>", "workspace folder")
    .action(async (opts: ExportOptions) => {
      checkOut(opts);
      const { services, close } = await open(opts);
      try {
        const summary = await exportGraph(services.store, opts.format, opts.out ?? process.stdout, {
          workspace: services.config.workspace,
        }).catch(ignoreClosedPipe);
        if (!summary) return;
        if (opts.out) {
          process.stderr.write(
            `Wrote ${summary.nodes} entities and ${summary.edges} relationships as ${summary.format}: ` +
              `${summary.files.join(", ")}\n`,
          );
        }
      } finally {
        await close();
      }
    });
}

/** Before the workspace is opened: a bad --out should cost nothing and replace nothing. */
function checkOut(opts: ExportOptions): void {
  if (opts.format === "neo4j-csv" && !opts.out) {
    throw new UsageError("--format neo4j-csv writes several files: give a directory with --out.");
  }
  if (opts.force && !opts.out) throw new UsageError("--force only applies with --out PATH.");
  if (opts.out) checkOutPath(opts.out, opts.format === "neo4j-csv" ? "folder" : "file", opts.force ?? false);
}

/** The reader of standard output went away (e.g. `| head`): nothing left to do. */
function ignoreClosedPipe(error: unknown): undefined {
  if ((error as NodeJS.ErrnoException).code === "EPIPE") return undefined;
  throw error;
}
