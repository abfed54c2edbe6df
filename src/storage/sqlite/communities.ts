import type { CommunityRecord } from "../../types.js";
import type { Sql } from "./connection.js";
import { type CommunityRow, toCommunity } from "./rows.js";

const COMMUNITY_COLUMNS = "id, level, parent_id, child_ids, entity_keys, content_hash, report, report_hash";

/** The community hierarchy with its reports, replaced as a whole after each clustering. */
export class CommunityTable {
  constructor(private readonly sql: Sql) {}

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
  }

  /** In the order they were given to replaceAll. */
  list(): CommunityRecord[] {
    return this.sql
      .all<CommunityRow>(`SELECT ${COMMUNITY_COLUMNS} FROM communities ORDER BY seq`)
      .map(toCommunity);
  }

  saveReport(id: string, report: CommunityRecord["report"], reportHash: string): void {
    const result = this.sql.run(
      "UPDATE communities SET report = ?, report_hash = ? WHERE id = ?",
      report === null ? null : JSON.stringify(report),
      reportHash,
      id,
    );
    if (result.changes === 0) throw new Error(`Cannot save a report for unknown community "${id}".`);
  }
}
