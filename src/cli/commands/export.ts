import { extname } from "node:path";
import { type Command, Option } from "commander";
import { EXPORT_FORMATS, type ExportFormat, exportGraph } from "../../export/export-graph.js";
import type { OpenServices } from "../open.js";
import { UsageError } from "../output.js";
import { checkOutPath } from "../output-path.js";

interface ExportOptions {
  format?: ExportFormat;
  out?: string;
  force?: boolean;
  workspace?: string;
}

/**
 * `kgrag export [--format graphml|gexf|json|neo4j-csv] [--out PATH] [--force]`, from either backend;
 * the format defaults to the one the --out file's extension names.
 */
export function registerExportCommand(program: Command, open: OpenServices): void {
  program
    .command("export")
    .description(
      "Write the knowledge graph as GraphML or GEXF (Gephi, yEd), JSON, or CSV files for neo4j-admin import",
    )
    .addOption(
      new Option("--format <format>", "output format (default: from the --out extension)").choices(
        EXPORT_FORMATS,
      ),
    )
    .option("-o, --out <path>", "output file, or directory for neo4j-csv (default: standard output)")
    .option("-f, --force", "overwrite an existing --out file (or write into a non-empty directory)")
    .option("-w, --workspace <dir>", "workspace folder")
    .action(async (opts: ExportOptions) => {
      const format = opts.format ?? formatFromOut(opts.out);
      checkOut(format, opts);
      const { services, close } = await open({ ...opts, usesModel: false });
      try {
        const summary = await exportGraph(services.store, format, opts.out ?? process.stdout, {
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

/** File formats by extension; neo4j-csv writes a folder, which has none, so it stays explicit. */
const FORMAT_OF_EXTENSION: Record<string, ExportFormat> = {
  ".graphml": "graphml",
  ".gexf": "gexf",
  ".json": "json",
};

function formatFromOut(out: string | undefined): ExportFormat {
  const choices = `--format ${EXPORT_FORMATS.join("|")}`;
  if (!out) {
    throw new UsageError(`Give ${choices}, or an --out file ending in .graphml, .gexf or .json.`);
  }
  const format = FORMAT_OF_EXTENSION[extname(out).toLowerCase()];
  if (format) return format;
  throw new UsageError(
    `Cannot tell the format from --out ${out} (known endings: .graphml, .gexf, .json; a folder of CSV files needs --format neo4j-csv); give ${choices}.`,
  );
}

/** Before the workspace is opened: a bad --out should cost nothing and replace nothing. */
function checkOut(format: ExportFormat, opts: ExportOptions): void {
  if (format === "neo4j-csv" && !opts.out) {
    throw new UsageError("--format neo4j-csv writes several files: give a directory with --out.");
  }
  if (opts.force && !opts.out) throw new UsageError("--force only applies with --out PATH.");
  if (opts.out) checkOutPath(opts.out, format === "neo4j-csv" ? "folder" : "file", opts.force ?? false);
}

/** The reader of standard output went away (e.g. `| head`): nothing left to do. */
function ignoreClosedPipe(error: unknown): undefined {
  if ((error as NodeJS.ErrnoException).code === "EPIPE") return undefined;
  throw error;
}
