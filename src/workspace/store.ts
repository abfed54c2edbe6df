import { basename, resolve } from "node:path";
import { ConfigError, type KgragConfig } from "../config.js";
import type { GraphStore } from "../storage/graph-store.js";
import { openSqliteStore } from "../storage/sqlite/sqlite-store.js";
import type { ProgressReporter } from "../util/progress.js";
import { refuseFileAsWorkspace } from "./workspace-folder.js";

/** Opens the configured backend: one SQLite file per workspace (default) or a shared Neo4j database. */
export async function openStore(
  config: KgragConfig,
  workspaceDir: string,
  progress?: ProgressReporter,
): Promise<GraphStore> {
  if (config.storage === "sqlite") {
    refuseFileAsWorkspace(workspaceDir);
    return openSqliteStore(workspaceDir, {
      vectorIndex: config.vectorIndex,
      readCache: config.sqliteReadCache,
      search: config.sqliteSearch,
      pageSize: config.sqlitePageSize,
      checkpointEveryMs: config.sqliteCheckpointEveryMs,
      ...(progress ? { progress } : {}),
    });
  }
  if (!config.neo4j) {
    throw new ConfigError(
      "KGRAG_STORAGE=neo4j needs NEO4J_URI (and NEO4J_USERNAME, NEO4J_PASSWORD, optionally NEO4J_DATABASE). " +
        "Start one with `docker compose up -d` (see docker-compose.yml).",
    );
  }
  // Loaded on demand so the embedded default never pays for the driver.
  const { openNeo4jStore } = await import("../storage/neo4j/neo4j-store.js");
  // In Neo4j a workspace is a name shared by every process that uses it, not a folder.
  return openNeo4jStore(config.neo4j, neo4jWorkspaceName(workspaceDir));
}

/** The name a workspace folder setting maps to in Neo4j: its last path segment ("./kgrag-data" -> "kgrag-data"). */
export function neo4jWorkspaceName(workspace: string): string {
  return basename(resolve(workspace));
}
