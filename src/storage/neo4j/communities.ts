import type { CommunityRecord } from "../../types.js";
import type { ReportSave } from "../graph-store.js";
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

/** Atomic: every report in one transaction, or none when a community is unknown. */
export async function saveCommunityReports(db: Neo4jConnection, saves: ReportSave[]): Promise<void> {
  if (saves.length === 0) return;
  const rows = saves.map(({ id, report, reportHash }) => ({ id, reportHash, ...reportProperties(report) }));
  await db.write(async (tx) => {
    const saved = new Set(
      (await tx.runBatched("store/community-save-reports", rows)).map((r) => String(r.id)),
    );
    const unknown = saves.find((s) => !saved.has(s.id));
    if (unknown) throw new Error(`Cannot save a report for unknown community "${unknown.id}".`);
  });
}
