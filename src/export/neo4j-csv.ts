import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { renderCsv } from "./csv-format.js";
import type { GraphSnapshot } from "./graph-snapshot.js";
import { type CsvTable, nodeTables, relationshipTables } from "./neo4j-csv-tables.js";

export { ARRAY_DELIMITER } from "./csv-format.js";

/**
 * CSV files for `neo4j-admin database import full` in kgrag's graph model (docs/neo4j.md), so the
 * imported database is a kgrag Neo4j workspace, plus import-command.txt with the matching command.
 * Vectors, the LLM cache and the history are not exported (`kgrag migrate` copies those).
 */
export async function writeNeo4jCsv(
  snapshot: GraphSnapshot,
  directory: string,
  workspace: string,
): Promise<string[]> {
  await mkdir(directory, { recursive: true });
  const tables = [...nodeTables(snapshot, workspace), ...relationshipTables(snapshot, workspace)];
  for (const t of tables) await writeFile(join(directory, t.name), renderCsv(t.header, t.rows));
  await writeFile(join(directory, "import-command.txt"), importCommand(tables));
  return [...tables.map((t) => t.name), "import-command.txt"];
}

function importCommand(tables: CsvTable[]): string {
  const inputs = tables.map((t) => `  --${t.kind}=${t.name} \\`).join("\n");
  return (
    "# Run from this folder, with the target database stopped (or new). Then start it and run kgrag\n" +
    "# with KGRAG_STORAGE=neo4j: it creates the constraints and indexes on first open.\n" +
    "neo4j-admin database import full neo4j \\\n" +
    '  --array-delimiter="U+001E" --multiline-fields=true \\\n' +
    `${inputs}\n  --overwrite-destination=false\n`
  );
}
