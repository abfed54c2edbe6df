import { PAIR_SEPARATOR, relationshipKey } from "../../merge/keys.js";
import type { RelationshipRecord } from "../../types.js";
import type { DescribedEdge, GraphEdge, GraphRelationship, WalkAdjacency } from "../graph-store.js";
import { idList, qualified, type Sql } from "./connection.js";
import type { FullTextIndex } from "./fts.js";
import { changesPrunedThrough, RelationshipCache } from "./relationship-cache.js";
import {
  type GraphRelationshipRow,
  type RelationshipRow,
  toGraphRelationship,
  toRelationship,
} from "./rows.js";
import { RELATIONSHIP_CHANGES_PRUNED_KEY } from "./schema.js";

const RELATIONSHIP_COLUMNS =
  "key, source_key, target_key, description, fragments, keywords, weight, source_chunk_ids, " +
  "fragments_hash, needs_summary";
const RELATIONSHIP_COLUMNS_OF_R = qualified("r", RELATIONSHIP_COLUMNS);

/**
 * Folded relationships: one row per unordered entity pair, stored in canonical order, kept in
 * step with their full-text rows.
 */
export class RelationshipTable {
  private readonly cache: RelationshipCache;

  constructor(
    private readonly sql: Sql,
    private readonly fullText: FullTextIndex,
    /** Config sqliteReadCache.maxRelationships. */
    maxCachedRecords: number,
    /** Config sqliteReadCache.maxWholeGraphEdges. */
    maxWholeGraphEdges?: number,
  ) {
    this.cache = new RelationshipCache(sql, maxCachedRecords, maxWholeGraphEdges);
  }

  upsert(relationship: RelationshipRecord): void {
    assertCanonical(relationship);
    this.cache.changed();
    // The endpoints follow from the key (canonical), so an update leaves them, and their two
    // indexes, untouched: re-writing 20,000 of 2M relationships took 6.7 s with them, 1.9 s without.
    const seq = this.sql.column<number>(
      `INSERT INTO relationships (${RELATIONSHIP_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET
         description = excluded.description, fragments = excluded.fragments, keywords = excluded.keywords,
         weight = excluded.weight, source_chunk_ids = excluded.source_chunk_ids,
         fragments_hash = excluded.fragments_hash, needs_summary = excluded.needs_summary
       RETURNING seq`,
      relationship.key,
      relationship.sourceKey,
      relationship.targetKey,
      relationship.description,
      JSON.stringify(relationship.fragments),
      JSON.stringify(relationship.keywords),
      relationship.weight,
      JSON.stringify(relationship.sourceChunkIds),
      relationship.fragmentsHash,
      relationship.needsSummary ? 1 : 0,
    )[0] as number;
    this.fullText.queueRelationship(seq);
  }

  delete(key: string): void {
    this.cache.changed();
    const seq = this.sql.column<number>("DELETE FROM relationships WHERE key = ? RETURNING seq", key)[0];
    if (seq !== undefined) this.fullText.removeRelationship(seq);
  }

  /** In the order of `keys`; unknown keys are skipped. */
  get(keys: string[]): RelationshipRecord[] {
    return this.sql
      .all<RelationshipRow>(
        `SELECT ${RELATIONSHIP_COLUMNS_OF_R} FROM json_each(?) wanted JOIN relationships r ON r.key = wanted.value
         ORDER BY wanted.key`,
        idList(keys),
      )
      .map(toRelationship);
  }

  /** get() from memory (see RelationshipCache.records): a query reads the same records again and again. */
  cached(keys: string[]): RelationshipRecord[] {
    return this.cache.records([...new Set(keys)], (missing) => this.get(missing));
  }

  list(): RelationshipRecord[] {
    return this.sql
      .all<RelationshipRow>(`SELECT ${RELATIONSHIP_COLUMNS} FROM relationships ORDER BY key`)
      .map(toRelationship);
  }

  /** Every relationship without fragments and provenance, in key order (the order of list()). */
  listLean(): GraphRelationship[] {
    return this.sql
      .all<GraphRelationshipRow>(
        "SELECT key, source_key, target_key, description, keywords, weight FROM relationships ORDER BY key",
      )
      .map(toGraphRelationship);
  }

  /** Endpoints and weight of every relationship (what clustering reads). */
  weightedEdges(): { sourceKey: string; targetKey: string; weight: number }[] {
    return this.sql.all<{ sourceKey: string; targetKey: string; weight: number }>(
      "SELECT source_key AS sourceKey, target_key AS targetKey, weight FROM relationships",
    );
  }

  needingSummary(): RelationshipRecord[] {
    return this.sql
      .all<RelationshipRow>(
        `SELECT ${RELATIONSHIP_COLUMNS} FROM relationships WHERE needs_summary = 1 ORDER BY key`,
      )
      .map(toRelationship);
  }

  /** In key order; served from memory (see RelationshipCache). */
  touching(entityKeys: string[]): RelationshipRecord[] {
    return this.cache.records(this.cache.keysTouching(entityKeys), (missing) => this.get(missing));
  }

  /** The relationships of touching(), as bare edges straight from memory (no record is read). */
  edgesTouching(entityKeys: string[]): GraphEdge[] {
    return this.cache.edgesTouching(entityKeys);
  }

  /** Each entity's edges in key order, straight from memory (see RelationshipCache.edgeLists). */
  edgeLists(entityKeys: string[]): Map<string, GraphEdge[]> {
    return this.cache.edgeLists(entityKeys);
  }

  /** New neighbours of the frontier, strongest relationship first; from memory (see RelationshipCache). */
  neighbours(frontier: string[], known: string[], limit: number): string[] {
    return this.cache.neighbours(frontier, known, limit);
  }

  /**
   * The relationships inside the node set, strongest first, with their descriptions: edges from
   * memory, the descriptions not cached yet in one read. A relationship deleted by another process
   * between the two reads is left out.
   */
  among(entityKeys: string[], limit: number): DescribedEdge[] {
    const edges = this.cache.edgesAmong(entityKeys, limit);
    const descriptions = this.cache.descriptions(
      edges.map((edge) => edge.key),
      (missing) => this.readDescriptions(missing),
    );
    const described: DescribedEdge[] = [];
    for (const [i, { key, sourceKey, targetKey, weight }] of edges.entries()) {
      const description = descriptions[i];
      if (description !== undefined) described.push({ key, sourceKey, targetKey, description, weight });
    }
    return described;
  }

  private readDescriptions(keys: string[]): Map<string, string> {
    const rows = this.sql.all<{ key: string; description: string }>(
      `SELECT r.key, r.description FROM json_each(?) wanted JOIN relationships r ON r.key = wanted.value`,
      idList(keys),
    );
    return new Map(rows.map((row) => [row.key, row.description]));
  }

  /**
   * Empties the change log readers catch up from (see RelationshipCache) but for its newest row,
   * which keeps the next id above every id handed out (the log has no AUTOINCREMENT), and records
   * how far it went, so a reader whose snapshot is older rebuilds instead of missing changes.
   * Writers call it after a run.
   */
  pruneChangeLog(): void {
    this.sql.transaction(() => {
      const last = this.sql.column<number>("SELECT coalesce(max(id), 0) FROM relationship_changes")[0] ?? 0;
      const deleted = this.sql.run("DELETE FROM relationship_changes WHERE id < ?", last).changes;
      if (deleted === 0) return;
      // Never lowered: a reader between an older prune's mark and this one must still rebuild.
      this.sql.run(
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
        RELATIONSHIP_CHANGES_PRUNED_KEY,
        String(Math.max(changesPrunedThrough(this.sql), last - 1)),
      );
    });
  }

  /** The numbered graph of the current data version (see RelationshipCache.walkAdjacency). */
  walkAdjacency(afterWalks: number): WalkAdjacency | undefined {
    return this.cache.walkAdjacency(afterWalks);
  }

  /** Relationship count per entity; a self-loop counts once, unknown keys count 0. */
  degrees(entityKeys: string[]): Map<string, number> {
    return this.cache.degrees(entityKeys);
  }
}

/** The store guards "one edge per unordered pair": a record must be in canonical form to be saved. */
function assertCanonical(relationship: RelationshipRecord): void {
  const { key, sourceKey, targetKey } = relationship;
  // An endpoint holding the separator would let two pairs share a key (and an update keeps the
  // endpoints it first stored).
  if (sourceKey.includes(PAIR_SEPARATOR) || targetKey.includes(PAIR_SEPARATOR)) {
    throw new Error(`Relationship ${JSON.stringify(key)} has an endpoint key holding the pair separator.`);
  }
  if (sourceKey > targetKey || key !== relationshipKey(sourceKey, targetKey)) {
    throw new Error(
      `Relationship ${JSON.stringify(key)} is not canonical: its key must be relationshipKey(sourceKey, ` +
        `targetKey) with sourceKey <= targetKey (got ${JSON.stringify(sourceKey)}, ${JSON.stringify(targetKey)}).`,
    );
  }
}
