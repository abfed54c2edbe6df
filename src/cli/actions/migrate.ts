import { copyStore } from "../../export/copy-store.js";
import { neo4jWorkspaceName } from "../../workspace/store.js";
import type { OpenServices } from "../open.js";
import { UsageError } from "../usage-error.js";

/** `kgrag migrate --to neo4j`: copies the embedded workspace into the configured Neo4j. */
export async function migrateAction(
  open: OpenServices,
  opts: { to: string; workspace?: string },
): Promise<void> {
  if (opts.to !== "neo4j")
    throw new UsageError(`kgrag migrate copies into Neo4j only (--to neo4j), not "${opts.to}".`);
  const { services, close } = await open({ ...opts, usesModel: false });
  try {
    if (services.store.kind !== "sqlite") {
      throw new UsageError(
        "kgrag migrate reads the embedded store: run it without KGRAG_STORAGE=neo4j (NEO4J_URI still set).",
      );
    }
    const settings = services.config.neo4j;
    if (!settings) {
      throw new UsageError(
        "Set NEO4J_URI (and NEO4J_USERNAME, NEO4J_PASSWORD) to the target Neo4j; `docker compose up -d` starts one.",
      );
    }
    const { openNeo4jStore } = await import("../../storage/neo4j/neo4j-store.js");
    const target = await openNeo4jStore(settings, neo4jWorkspaceName(services.config.workspace));
    try {
      const report = await copyStore(services.store, target, services.progress);
      process.stdout.write(
        `Copied ${report.documents} documents, ${report.chunks} chunks, ${report.entities} entities, ` +
          `${report.relationships} relationships, ${report.communities} communities, ${report.vectors} vectors, ` +
          `${report.history} history entries and ${report.llmCache} cached LLM answers to ${settings.uri} ` +
          `(workspace "${neo4jWorkspaceName(services.config.workspace)}").\n`,
      );
      for (const part of report.notCopied) process.stderr.write(`kgrag: not copied: ${part}\n`);
      process.stdout.write("Use it with KGRAG_STORAGE=neo4j and the same --workspace.\n");
    } finally {
      await target.close();
    }
  } finally {
    await close();
  }
}
