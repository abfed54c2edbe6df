import type { CommunityRecord } from "../../types.js";
import type { Sql } from "./connection.js";
import { type CommunityRow, toCommunity } from "./rows.js";
import { TableVersion } from "./table-version.js";

const COMMUNITY_COLUMNS = "id, level, parent_id, child_ids, entity_keys, content_hash, report, report_hash";

/** The community hierarchy with its reports, replaced as a whole after each clustering. */
export class CommunityTable {
  private cached: { version: string; communities: CommunityRecord[] } | undefined;
  private readonly version: TableVersion;

  constructor(private readonly sql: Sql) {
    this.version = new TableVersion(sql, "communities");
  }

  /** Call inside a transaction. */
  replaceAll(communities: CommunityRecord[]): void {
    this.sql.run("DELETE FROM communities");
    const insert = this.sql.statement(
      `INSERT INTO communities (${COMMUNITY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const c of communities) {
      insert.run(
        c.id,
        c.level,
        c.parentId,
        JSON.stringify(c.childIds),
        JSON.stringify(c.entityKeys),
        c.contentHash,
        c.report === null ? null : JSON.stringify(c.report),
        c.reportHash,
      );
    }
    this.version.bump();
  }

  /**
   * In the order they were given to replaceAll. Global queries read them all; parsing thousands of
   * reports costs far more than copying them, so the parsed list is kept until the table changes
   * (not merely the database: an indexer leaves communities alone until its last steps).
   */
  list(): CommunityRecord[] {
    const version = this.version.current();
    if (this.cached?.version !== version) {
      const rows = this.sql.all<CommunityRow>(`SELECT ${COMMUNITY_COLUMNS} FROM communities ORDER BY seq`);
      this.cached = { version, communities: rows.map(toCommunity) };
    }
    return this.cached.communities.map(copy);
  }

  saveReport(id: string, report: CommunityRecord["report"], reportHash: string): void {
    const result = this.sql.run(
      "UPDATE communities SET report = ?, report_hash = ? WHERE id = ?",
      report === null ? null : JSON.stringify(report),
      reportHash,
      id,
    );
    if (result.changes === 0) throw new Error(`Cannot save a report for unknown community "${id}".`);
    this.version.bump();
  }
}

/** Callers may change what they get; the cache keeps its own. */
function copy(community: CommunityRecord): CommunityRecord {
  const { report } = community;
  return {
    ...community,
    childIds: [...community.childIds],
    entityKeys: [...community.entityKeys],
    report: report && { ...report, findings: report.findings.map((finding) => ({ ...finding })) },
  };
}
