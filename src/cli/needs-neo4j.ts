/**
 * The one message every Neo4j-only command (cypher, cypher schema, ask, chat) gives on the embedded
 * store, so each lists the same steps, including copying the existing workspace over.
 */
export function needsNeo4jMessage(command: string, purpose: string, alternative?: string): string {
  return [
    `\`kgrag ${command}\` needs the Neo4j backend (it ${purpose}); this workspace uses the embedded SQLite store.`,
    "Start Neo4j and point kgrag at it:",
    "  docker compose up -d          # docker-compose.yml in the kgrag folder",
    "  export KGRAG_STORAGE=neo4j NEO4J_URI=bolt://localhost:7687 NEO4J_PASSWORD=<compose password>",
    "  kgrag migrate --to neo4j      # copy this workspace into Neo4j (or index again with kgrag index)",
    ...(alternative ? [alternative] : []),
    "See docs/neo4j.md.",
  ].join("\n");
}
