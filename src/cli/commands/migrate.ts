import type { Command } from "commander";
import type { OpenServices } from "../open.js";

/**
 * `kgrag migrate --to neo4j`: copies the embedded workspace into Neo4j (NEO4J_URI...) under the
 * same workspace name, with nothing extracted or embedded again.
 */
export function registerMigrateCommand(program: Command, open: OpenServices): void {
  program
    .command("migrate")
    .description(
      "Copy an embedded (SQLite) workspace into Neo4j: documents, graph, vectors, communities, cache",
    )
    .requiredOption("--to <backend>", "target backend: neo4j")
    .option("-w, --workspace <dir>", "workspace folder")
    .action(async (opts: { to: string; workspace?: string }) =>
      (await import("../actions/migrate.js")).migrateAction(open, opts),
    );
}
