import type { HistoryEntry } from "../../types.js";
import type { Sql } from "./connection.js";

interface HistoryRow {
  kind: HistoryEntry["kind"];
  key: string;
  action: HistoryEntry["action"];
  old_description: string | null;
  new_description: string | null;
  cause: string;
  at: string;
}

const HISTORY_COLUMNS = "kind, key, action, old_description, new_description, cause, at";

/** Append-only log of entity and relationship changes, read back in insertion order. */
export class HistoryLog {
  constructor(private readonly sql: Sql) {}

  append(entries: HistoryEntry[]): void {
    const insert = this.sql.statement(
      `INSERT INTO history (${HISTORY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const e of entries) {
      insert.run(e.kind, e.key, e.action, e.oldDescription, e.newDescription, e.cause, e.at);
    }
  }

  list(key?: string): HistoryEntry[] {
    const rows =
      key === undefined
        ? this.sql.all<HistoryRow>(`SELECT ${HISTORY_COLUMNS} FROM history ORDER BY id`)
        : this.sql.all<HistoryRow>(`SELECT ${HISTORY_COLUMNS} FROM history WHERE key = ? ORDER BY id`, key);
    return rows.map((row) => ({
      kind: row.kind,
      key: row.key,
      action: row.action,
      oldDescription: row.old_description,
      newDescription: row.new_description,
      cause: row.cause,
      at: row.at,
    }));
  }
}
