import { extname } from "node:path";
import { EXPORT_FORMATS, type ExportFormat, exportGraph } from "../../export/export-graph.js";
import { neo4jWorkspaceName } from "../../workspace/store.js";
import type { ExportOptions } from "../commands/export.js";
import type { OpenServices } from "../open.js";
import { checkOutPath } from "../output-path.js";
import { UsageError } from "../usage-error.js";

/** `--out -` names standard output, as leaving --out out does. */
const STANDARD_OUTPUT = "-";

/** `kgrag export`: checks --format and --out first, then writes the graph. */
export async function exportAction(open: OpenServices, given: ExportOptions): Promise<void> {
  const { out, ...rest } = given;
  const opts: ExportOptions = out === STANDARD_OUTPUT ? rest : given;
  const format = opts.format ?? formatFromOut(opts.out);
  checkOut(format, opts);
  const { services, close } = await open({ ...opts, usesModel: false });
  try {
    const summary = await exportGraph(services.store, format, opts.out ?? process.stdout, {
      // The name the Neo4j store gives this workspace (its folder's last segment), so kgrag finds the import.
      workspace: neo4jWorkspaceName(services.config.workspace),
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
    throw new UsageError(
      `Give ${choices} to write to standard output, or an --out file ending in .graphml, .gexf or .json.`,
    );
  }
  const format = FORMAT_OF_EXTENSION[extname(out).toLowerCase()];
  if (format) return format;
  throw new UsageError(
    `Cannot tell the format from --out ${out} (known endings: .graphml, .gexf, .json; a folder of CSV files needs --format neo4j-csv); give ${choices}.`,
  );
}

/** Before the workspace is opened: a bad --out should cost nothing and replace nothing. */
function checkOut(format: ExportFormat, opts: ExportOptions): void {
  const ending = opts.out ? extname(opts.out).toLowerCase() : "";
  const endingFormat = FORMAT_OF_EXTENSION[ending];
  // GraphML in a .json file opens in no tool that trusts the ending.
  if (opts.out && endingFormat && endingFormat !== format) {
    throw new UsageError(
      `--out ${opts.out} ends in ${ending}, the ending of ${endingFormat}, but --format is ${format}: ` +
        `name the file for ${format}, or leave out --format to write ${endingFormat}.`,
    );
  }
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
