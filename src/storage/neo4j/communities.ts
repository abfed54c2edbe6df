import type { CommunityRecord } from "../../types.js";
import type { Neo4jConnection } from "./connection.js";
import { asCommunities } from "./read-rows.js";
import { communityRow, reportProperties } from "./write-rows.js";

/**
 * The community hierarchy: (:Entity)-[:IN_COMMUNITY]->(:Community)-[:PARENT]->(:Community).
 * Replacing keeps the nodes (and so the report vectors) of ids that survive a re-clustering.
 */
export async function replaceCommunities(db: Neo4jConnection, communities: CommunityRecord[]): Promise<void> {
  const rows = communities.map(communityRow);
  await db.write(async (tx) => {
    await tx.run("store/communities-delete-others", { ids: communities.map((c) => c.id) });
    await tx.run("store/communities-unlink");
    await tx.runBatched("store/communities-upsert", rows);
    await tx.run("store/communities-link");
  });
}

export async function listCommunities(db: Neo4jConnection): Promise<CommunityRecord[]> {
  return asCommunities(await db.read("store/communities-list"));
}

export async function saveCommunityReport(
  db: Neo4jConnection,
  id: string,
  report: CommunityRecord["report"],
  reportHash: string,
): Promise<void> {
  const rows = await db.write((tx) =>
    tx.run("store/community-save-report", { id, reportHash, ...reportProperties(report) }),
  );
  if (rows.length === 0) throw new Error(`Cannot save a report for unknown community "${id}".`);
}
