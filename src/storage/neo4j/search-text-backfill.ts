import { int, type Neo4jConnection } from "./connection.js";
import { asNumber, asRelationships } from "./read-rows.js";
import { relationshipSearchTerms } from "./search-terms.js";

/** Relationships filled per write transaction. */
export const BACKFILL_PAGE = 1000;

/** Workspaces (database target + workspace) already checked by this process. */
const backfilled = new Set<string>();

/**
 * Relationship edges written before relationships were full-text indexed, or before their text
 * was stemmed (the retired searchText), have no searchTerms, so the kgrag_relationship_terms index
 * cannot see them. Opening the workspace fills them in, computed by the same
 * relationshipSearchTerms the upsert uses, one page per transaction; only edges still lacking them
 * are written, so a concurrent upsert's fresh terms are never overwritten.
 * Returns how many edges were filled. Stops at a page that fills nothing: an edge that is found
 * but cannot be written would otherwise be found again forever.
 */
export async function backfillRelationshipSearchText(connection: Neo4jConnection): Promise<number> {
  const target = `${connection.runner.target}\u0000${connection.workspace}`;
  if (backfilled.has(target)) return 0;
  // A read, not a write transaction: opening a workspace to query it must not wait for writers.
  if (await backfillDone(connection)) {
    backfilled.add(target);
    return 0;
  }
  let filled = 0;
  for (;;) {
    const page = await connection.write(async (tx) => {
      const missing = asRelationships(
        await tx.run("store/relationships-missing-search-text", { limit: int(BACKFILL_PAGE) }),
      );
      const rows = missing.map((rel) => ({ key: rel.key, searchTerms: relationshipSearchTerms(rel) }));
      if (rows.length === 0) return { found: 0, written: 0 };
      const [result] = await tx.run("store/relationships-set-search-text", { rows });
      return { found: rows.length, written: asNumber(result?.filled ?? 0, "filled edges") };
    });
    filled += page.written;
    if (page.found < BACKFILL_PAGE) {
      // Nothing is left: later opens (of any process) skip the scan.
      await connection.write((tx) => tx.run("store/meta-set", { key: DONE_KEY, value: "complete" }));
      break;
    }
    if (page.written === 0) break;
  }
  backfilled.add(target);
  return filled;
}

/**
 * Set once every relationship of the workspace has searchTerms; every later upsert writes them.
 * (The key of the retired searchText back-fill was "relationshipSearchText".)
 */
const DONE_KEY = "relationshipSearchTerms";

async function backfillDone(connection: Neo4jConnection): Promise<boolean> {
  const [row] = await connection.read("store/meta-get", { key: DONE_KEY });
  return row?.value === "complete";
}
