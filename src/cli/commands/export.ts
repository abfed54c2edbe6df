import type { Command } from "commander";
import { EXPORT_FORMATS, type ExportFormat, exportGraph } from "../../export/export-graph.js";
import type { KgragServices } from "../../services.js";
import { UsageError } from "../output.js";

type OpenServices = (opts: {
  workspace?: string;
}) => Promise<{ services: KgragServices; close(): Promise<void> }>;

interface ExportOptions {
  format: ExportFormat;
  out?: string;
  workspace?: string;
}

/** `kgrag export --format graphml|gexf|json|neo4j-csv [--out PATH]`, from either backend. */
export function registerExportCommand(program: Command, open: OpenServices): void {
  program
    .command("export")
    .description(
      "Write the knowledge graph as GraphML or GEXF (Gephi, yEd), JSON, or CSV files for neo4j-admin import",
    )
    .requiredOption("--format <format>", EXPORT_FORMATS.join(" | "), parseFormat)
    .option("-o, --out <path>", "output file, or directory for neo4j-csv (default: standard output)")
    .option("-w, --workspace <dir>", "workspace folder")
    .action(async (opts: ExportOptions) => {
      if (opts.format === "neo4j-csv" && !opts.out) {
        throw new UsageError("--format neo4j-csv writes several files: give a directory with --out.");
      }
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

/** The reader of standard output went away (e.g. `| head`): nothing left to do. */
function ignoreClosedPipe(error: unknown): undefined {
  if ((error as NodeJS.ErrnoException).code === "EPIPE") return undefined;
  throw error;
}

function parseFormat(value: string): ExportFormat {
  const format = EXPORT_FORMATS.find((f) => f === value);
  if (!format)
    throw new UsageError(`Unknown export format "${value}"; use one of ${EXPORT_FORMATS.join(", ")}.`);
  return format;
}
