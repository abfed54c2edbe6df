import { writeFile } from "node:fs/promises";
import { write as writeGexf } from "graphology-gexf";
import type { GraphStore } from "../storage/graph-store.js";
import { EXPORT_FORMATS, type ExportFormat } from "./formats.js";
import { loadGraphSnapshot, toGraphology } from "./graph-snapshot.js";
import { writeGraphml } from "./graphml-writer.js";
import { graphToJson } from "./json-export.js";
import { writeNeo4jCsv } from "./neo4j-csv.js";

export { EXPORT_FORMATS, type ExportFormat };

export interface ExportSummary {
  format: ExportFormat;
  nodes: number;
  edges: number;
  /** Files written; empty when the output went to a stream. */
  files: string[];
}

export interface ExportOptions {
  /** Workspace name written into every neo4j-csv row (the `workspace` property). */
  workspace?: string;
}

/**
 * Writes the graph of a store (either backend) as GraphML or GEXF (for Gephi, yEd, Cytoscape),
 * JSON, or neo4j-admin import CSV files. `out` is a file path or a stream for the single-file
 * formats, and a directory for neo4j-csv.
 */
export async function exportGraph(
  store: GraphStore,
  format: ExportFormat,
  out: string | NodeJS.WritableStream,
  options: ExportOptions = {},
): Promise<ExportSummary> {
  const snapshot = await loadGraphSnapshot(store);
  const counts = { format, nodes: snapshot.entities.length, edges: snapshot.relationships.length };
  if (format === "neo4j-csv") {
    if (typeof out !== "string") {
      throw new Error("neo4j-csv writes several files: give a directory with --out.");
    }
    return { ...counts, files: await writeNeo4jCsv(snapshot, out, options.workspace ?? "default") };
  }
  const text =
    format === "json"
      ? graphToJson(snapshot)
      : format === "gexf"
        ? // GEXF 1.3: the writer's 1.2 header declares a malformed viz namespace ("http:///www...").
          writeGexf(toGraphology(snapshot), { version: "1.3" })
        : writeGraphml(toGraphology(snapshot));
  if (typeof out === "string") {
    await writeFile(out, text);
    return { ...counts, files: [out] };
  }
  await new Promise<void>((resolve, reject) => {
    // A closed pipe (`kgrag export ... | head`) is reported as an 'error' event as well.
    out.once("error", reject);
    out.write(text, (error) => (error ? reject(error) : resolve()));
  });
  return { ...counts, files: [] };
}
