import { relationshipKey } from "../../merge/keys.js";
import type { RelationshipRecord } from "../../types.js";
import type { EdgeOrdinals, GraphEdge, WalkAdjacency } from "../graph-store.js";
import { idList, type Sql } from "./connection.js";
import { RELATIONSHIP_CHANGES_PRUNED_KEY } from "./schema.js";

/**
 * edgesAmong scans an entity's edges unless they outnumber the entities asked about this many
 * times over; then it looks up the pairs by key instead. A scan step is a typed-array read, a
 * lookup builds and hashes a pair key: 4 to 7 times dearer (measured on HotpotQA-100's top hub).
 */
const HUB_SCAN_FACTOR = 8;

/** One relationship as seen from one of its endpoints. */
interface AdjacentEdge {
  key: string;
  /** The other endpoint (the entity itself for a self-loop). */
  neighbour: string;
  /** Its entity ordinal: set-membership tests on numbers, not on key strings. */
  neighbourOrdinal: number;
  weight: number;
  /** The relationship as a walk sees it, one frozen object shared by both endpoints' lists. */
  edge: GraphEdge;
  /** Its ordinals in a plain object, for building the numbered graph (see walkAdjacency). */
  numbers: EdgeOrdinals;
}

interface Snapshot {
  version: string;
  /**
   * Whole: every relationship is held. Otherwise (a graph above maxWholeGraphEdges) only the lists
   * of the `loaded` entities are complete; other entities' lists hold what loading them brought.
   */
  whole: boolean;
  /** Entities whose byEntity list is complete (per-entity snapshots only). */
  loaded: Set<string>;
  /** Degrees counted in SQLite for entities not loaded (per-entity snapshots only). */
  counted: Map<string, number>;
  /** The last relationship_changes row this snapshot reflects. */
  lastChange: number;
  /** Relationships per entity; a self-loop is listed once. */
  byEntity: Map<string, AdjacentEdge[]>;
  /** Entities whose byEntity list is in SQLite's key order (sorted on first use, forgotten when it changes). */
  sorted: Set<string>;
  edges: Map<string, GraphEdge>;
  records: Map<string, RelationshipRecord>;
  /** Descriptions read by key (a neighbourhood needs only them, not the whole records). */
  descriptions: Map<string, string>;
  /** The numbered graph, built for the version it names. */
  adjacency?: { version: string; graph: WalkAdjacency };
  /** Walks that asked for the numbered graph of this version before it was built. */
  walksAsking?: { version: string; count: number };
}

interface EdgeRow {
  key: string;
  source_key: string;
  target_key: string;
  weight: number;
}

/**
 * What graph queries ask of relationships again and again (which edges touch these entities, how
 * many, and the edges themselves), held in memory. Hub entities have thousands of edges, and
 * reading them from SQLite on every query cost tens of milliseconds. When the relationships change,
 * through this connection or another process's commit (data_version), the snapshot catches up from
 * the change log the triggers keep (schema v6): while `kgrag index` commits every few hundred
 * milliseconds, a reader applies a few hundred changed edges instead of re-reading them all.
 * A graph too large to hold whole (sqliteReadCache.maxWholeGraphEdges) is read per entity, as
 * queries touch it, with the same answers in the same order.
 */
export class RelationshipCache {
  private snapshot: Snapshot | undefined;
  private localChanges = 0;
  /** Kept for the cache's whole life, across snapshots: a walk may mix edges read before and after a change. */
  private readonly entityOrdinals = new Ordinals();
  private readonly edgeOrdinals = new Ordinals();

  constructor(
    private readonly sql: Sql,
    /** Beyond it the records are dropped all at once (config sqliteReadCache.maxRelationships). */
    private readonly maxCachedRecords: number,
    /**
     * A graph with more relationships is read per entity as queries touch it, and what was read
     * is dropped all at once beyond this many edges (config sqliteReadCache.maxWholeGraphEdges).
     */
    private readonly maxWholeGraphEdges = Number.POSITIVE_INFINITY,
    /** Above this share of the cached edges changed, one full re-read is cheaper than catching up. */
    private readonly rebuildShare = 0.25,
  ) {}

  /** Called by every write to the relationships table. */
  changed(): void {
    this.localChanges += 1;
  }

  /** Keys of the relationships touching any of the entities, in SQLite's key order. */
  keysTouching(entityKeys: Iterable<string>): string[] {
    return this.edgesTouching(entityKeys).map((edge) => edge.key);
  }

  /** The relationships touching any of the entities as bare edges, in SQLite's key order. */
  edgesTouching(entityKeys: Iterable<string>): GraphEdge[] {
    const entities = [...new Set(entityKeys)];
    const snapshot = this.withLists(entities);
    if (entities.length === 1) return sortedEdges(snapshot, entities[0] as string).map(({ edge }) => edge);
    const edges = new Map<string, GraphEdge>();
    for (const entity of entities)
      for (const { edge } of sortedEdges(snapshot, entity)) edges.set(edge.key, edge);
    // Runs already in key order: the sort only merges them (TimSort), instead of sorting from scratch.
    return sortLikeSqlite([...edges.values()]);
  }

  /**
   * Each entity's edges in SQLite's key order (an unknown entity gets an empty list): the lists
   * edgesTouching merges, without the merge. Fresh arrays: the cache's own change as edges do.
   */
  edgeLists(entityKeys: Iterable<string>): Map<string, GraphEdge[]> {
    const entities = [...new Set(entityKeys)];
    const snapshot = this.withLists(entities);
    const lists = new Map<string, GraphEdge[]>();
    for (const entity of entities)
      if (!lists.has(entity))
        lists.set(
          entity,
          sortedEdges(snapshot, entity).map(({ edge }) => edge),
        );
    return lists;
  }

  /**
   * Entities related to the frontier and not known yet, by their strongest relationship to it
   * (ties by key), at most `limit`. Membership and the best weights are kept by entity ordinal:
   * a second hop scans tens of thousands of adjacent edges, and string-keyed lookups were most of it.
   */
  neighbours(frontier: string[], known: string[], limit: number): string[] {
    if (limit <= 0) return [];
    const { byEntity } = this.withLists(frontier);
    const entityCount = this.entityOrdinals.size;
    const isKnown = this.marked(known, new Uint8Array(entityCount));
    const strongest = new Float64Array(entityCount);
    const seen = new Uint8Array(entityCount);
    const reached: number[] = [];
    for (const entity of new Set(frontier)) {
      for (const { neighbourOrdinal: n, weight } of byEntity.get(entity) ?? []) {
        if (isKnown[n] === 1) continue;
        if (seen[n] === 0) {
          seen[n] = 1;
          strongest[n] = weight;
          reached.push(n);
        } else if (weight > (strongest[n] as number)) strongest[n] = weight;
      }
    }
    // A hop past a full node set asks for one entity out of thousands reached: only the ones that
    // can make the cut get a ranked entry.
    const threshold = weightAtRank(
      Float64Array.from(reached, (n) => strongest[n] as number),
      limit,
    );
    const { keys } = this.entityOrdinals;
    const candidates: { key: string; weight: number }[] = [];
    for (const n of reached) {
      const weight = strongest[n] as number;
      if (weight >= threshold) candidates.push({ key: keys[n] as string, weight });
    }
    return strongestFirst(candidates, limit).map(({ key }) => key);
  }

  /**
   * The relationships with both endpoints among the entities, strongest first (ties by key), at
   * most `limit`: the cache's own frozen edges. Each edge is taken once, from whichever endpoint
   * is visited first, so no map of edges seen is needed.
   */
  edgesAmong(entityKeys: string[], limit: number): GraphEdge[] {
    const { byEntity, edges } = this.withLists(entityKeys);
    const members = [...new Set(entityKeys)]
      .map((key) => ({ key, ordinal: this.entityOrdinals.numbers.get(key) }))
      .filter((m): m is { key: string; ordinal: number } => m.ordinal !== undefined);
    // 1: a member not visited yet; 2: visited (its edges are taken); 0: not a member.
    const state = new Uint8Array(this.entityOrdinals.size);
    for (const { ordinal } of members) state[ordinal] = 1;
    const inside: GraphEdge[] = [];
    for (const { key, ordinal } of members) {
      const adjacent = byEntity.get(key) ?? [];
      if (adjacent.length > HUB_SCAN_FACTOR * members.length) {
        // A hub among few entities: looking up its pairs is cheaper than scanning all its edges.
        for (const other of members) {
          if (state[other.ordinal] !== 1) continue;
          const edge = edges.get(relationshipKey(key, other.key));
          if (edge) inside.push(edge);
        }
      } else {
        for (const { neighbourOrdinal, edge } of adjacent)
          if (state[neighbourOrdinal] === 1) inside.push(edge);
      }
      state[ordinal] = 2;
    }
    return strongestFirst(inside, limit);
  }

  /**
   * The descriptions of the relationships, in the order of `keys` (undefined for an unknown key);
   * `load` reads the ones not cached yet. Kept apart from the records: a picture of the graph needs
   * only these.
   */
  descriptions(keys: string[], load: (missing: string[]) => Map<string, string>): (string | undefined)[] {
    const { descriptions } = this.current();
    let missing = keys.filter((key) => !descriptions.has(key));
    if (descriptions.size + missing.length > this.maxCachedRecords) {
      // Cleared before reading, as records() does.
      descriptions.clear();
      missing = keys;
    }
    if (missing.length > 0)
      for (const [key, description] of load(missing)) descriptions.set(key, description);
    return keys.map((key) => descriptions.get(key));
  }

  /** `marks` with a 1 at each key's entity ordinal (keys on no edge have none, and are skipped). */
  private marked(keys: Iterable<string>, marks: Uint8Array): Uint8Array {
    for (const key of keys) {
      const n = this.entityOrdinals.numbers.get(key);
      if (n !== undefined) marks[n] = 1;
    }
    return marks;
  }

  /** Relationship count per entity (a self-loop once); the version is checked once per call. */
  degrees(entityKeys: string[]): Map<string, number> {
    const snapshot = this.current();
    const { byEntity, whole, loaded, counted } = snapshot;
    if (!whole) this.countDegrees(snapshot, entityKeys);
    const degrees = new Map<string, number>();
    for (const key of entityKeys)
      degrees.set(key, whole || loaded.has(key) ? (byEntity.get(key)?.length ?? 0) : (counted.get(key) ?? 0));
    return degrees;
  }

  /**
   * Counts in SQLite the relationships of the entities whose list is not loaded: a walk asks the
   * degrees of every neighbour its seeds reach, and loading all their edges would be the second
   * hop it means to avoid. A self-loop counts once, as in a list.
   */
  private countDegrees(snapshot: Snapshot, entityKeys: string[]): void {
    const uncounted = [...new Set(entityKeys)].filter(
      (key) => !snapshot.loaded.has(key) && !snapshot.counted.has(key),
    );
    if (uncounted.length === 0) return;
    if (snapshot.counted.size + uncounted.length > this.maxWholeGraphEdges) snapshot.counted.clear();
    const rows = this.sql.all<{ key: string; degree: number }>(
      `SELECT value AS key,
         (SELECT count(*) FROM relationships WHERE source_key = value)
         + (SELECT count(*) FROM relationships WHERE target_key = value)
         - (SELECT count(*) FROM relationships WHERE source_key = value AND target_key = value) AS degree
       FROM json_each(?)`,
      JSON.stringify(uncounted),
    );
    for (const { key, degree } of rows) snapshot.counted.set(key, degree);
  }

  /**
   * The snapshot's graph in typed arrays (see WalkAdjacency), built once per data version, once
   * `afterWalks` walks asked for it (undefined until then: they read edge objects): each entity's
   * row in the order edgeLists gives. Ordinals are never taken back, so the arrays are indexed by
   * every ordinal handed out so far; a removed edge is simply in no row.
   */
  walkAdjacency(afterWalks: number): WalkAdjacency | undefined {
    const snapshot = this.current();
    // Numbering a graph too large to hold would hold it after all: those walks read edge lists.
    if (!snapshot.whole) return undefined;
    const { version } = snapshot;
    if (snapshot.adjacency?.version === version) return snapshot.adjacency.graph;
    if (snapshot.walksAsking?.version !== version) snapshot.walksAsking = { version, count: 0 };
    if (snapshot.walksAsking.count++ < afterWalks) return undefined;
    snapshot.adjacency = { version, graph: this.numbered(snapshot) };
    return snapshot.adjacency.graph;
  }

  private numbered(snapshot: Snapshot): WalkAdjacency {
    const edgeCount = this.edgeOrdinals.size;
    const entityCount = this.entityOrdinals.size;
    const edgeSources = new Int32Array(edgeCount).fill(-1);
    const edgeTargets = new Int32Array(edgeCount).fill(-1);
    const edgeWeights = new Float64Array(edgeCount);
    const rowOffsets = new Int32Array(entityCount + 1);
    const lists: { entity: number; adjacent: AdjacentEdge[] }[] = [];
    for (const entity of snapshot.byEntity.keys()) {
      const adjacent = sortedEdges(snapshot, entity);
      const n = this.entityOrdinals.numbers.get(entity) as number;
      rowOffsets[n + 1] = adjacent.length;
      lists.push({ entity: n, adjacent });
      for (const { numbers, weight } of adjacent) {
        edgeSources[numbers.edge] = numbers.source;
        edgeTargets[numbers.edge] = numbers.target;
        edgeWeights[numbers.edge] = weight;
      }
    }
    for (let n = 0; n < entityCount; n++)
      rowOffsets[n + 1] = (rowOffsets[n + 1] as number) + (rowOffsets[n] as number);
    const rowEdges = new Int32Array(rowOffsets[entityCount] as number);
    for (const { entity, adjacent } of lists) {
      let at = rowOffsets[entity] as number;
      for (const { numbers } of adjacent) rowEdges[at++] = numbers.edge;
    }
    return {
      entityNumbers: this.entityOrdinals.numbers,
      entityKeys: this.entityOrdinals.keys,
      edgeKeys: this.edgeOrdinals.keys,
      edgeSources,
      edgeTargets,
      edgeWeights,
      rowOffsets,
      rowEdges,
    };
  }

  /** Copies of the records, in the order of `keys`; `load` reads the ones not cached yet. */
  records(keys: string[], load: (missing: string[]) => RelationshipRecord[]): RelationshipRecord[] {
    const { records } = this.current();
    let missing = keys.filter((key) => !records.has(key));
    if (records.size + missing.length > this.maxCachedRecords) {
      // Cleared before reading: clearing after would drop cached records this call still returns.
      records.clear();
      missing = keys;
    }
    if (missing.length > 0) for (const record of load(missing)) records.set(record.key, record);
    const out: RelationshipRecord[] = [];
    for (const key of keys) {
      const record = records.get(key);
      if (record) out.push(copy(record));
    }
    return out;
  }

  /**
   * The current snapshot with the entities' lists complete: a per-entity snapshot reads the lists
   * it lacks (after dropping everything it read, past maxWholeGraphEdges).
   */
  private withLists(entityKeys: Iterable<string>): Snapshot {
    const snapshot = this.current();
    if (snapshot.whole) return snapshot;
    const wanted = [...new Set(entityKeys)];
    let missing = wanted.filter((key) => !snapshot.loaded.has(key));
    if (missing.length === 0) return snapshot;
    if (snapshot.edges.size > this.maxWholeGraphEdges) {
      forgetEdges(snapshot);
      missing = wanted;
    }
    const list = JSON.stringify(missing);
    const rows = this.sql.all<EdgeRow>(
      `SELECT key, source_key, target_key, weight FROM relationships
         WHERE source_key IN (SELECT value FROM json_each(?))
       UNION ALL
       SELECT key, source_key, target_key, weight FROM relationships
         WHERE target_key IN (SELECT value FROM json_each(?))`,
      list,
      list,
    );
    // An edge between two entities asked for comes twice, and one already read by its other end is kept.
    for (const row of rows) if (!snapshot.edges.has(row.key)) this.addEdge(snapshot, row);
    for (const key of missing) snapshot.loaded.add(key);
    return snapshot;
  }

  private current(): Snapshot {
    const version = `${this.sql.dataVersion()}:${this.localChanges}`;
    if (this.snapshot === undefined) this.snapshot = this.rebuild(version);
    else if (this.snapshot.version !== version) this.snapshot = this.catchUp(this.snapshot, version);
    return this.snapshot;
  }

  /** Reads every relationship. The log position is read first: a change committed meanwhile is applied again later, which is harmless. */
  private rebuild(version: string, whole = this.wholeGraphFits()): Snapshot {
    const lastChange = this.lastLoggedChange();
    const snapshot: Snapshot = {
      version,
      whole,
      loaded: new Set(),
      counted: new Map(),
      lastChange,
      byEntity: new Map(),
      sorted: new Set(),
      edges: new Map(),
      records: new Map(),
      descriptions: new Map(),
    };
    if (!whole) return snapshot;
    const rows = this.sql
      .statement("SELECT key, source_key, target_key, weight FROM relationships")
      .iterate() as IterableIterator<EdgeRow>;
    for (const row of rows) this.addEdge(snapshot, row);
    return snapshot;
  }

  /** Applies the logged changes since the snapshot, or rebuilds when they were pruned or are many. */
  private catchUp(snapshot: Snapshot, version: string): Snapshot {
    const changes = this.sql.all<{ id: number; key: string }>(
      "SELECT id, key FROM relationship_changes WHERE id > ? ORDER BY id",
      snapshot.lastChange,
    );
    // A per-entity snapshot starts empty again, not recounted: a graph too large to hold rarely
    // shrinks under the cap, and every index run prunes the log.
    const restart = () => (snapshot.whole ? this.rebuild(version) : this.rebuild(version, false));
    // Checked after reading: a writer pruning in between is seen here, never missed. A log whose
    // ids went back (emptied by a writer of schema 6, which kept no row) is not to be trusted either.
    if (this.prunedThrough() > snapshot.lastChange || this.lastLoggedChange() < snapshot.lastChange) {
      return restart();
    }
    const changedKeys = new Set(changes.map((change) => change.key));
    if (changedKeys.size > Math.max(1_000, snapshot.edges.size * this.rebuildShare)) return restart();
    const current = this.sql.all<EdgeRow>(
      `SELECT r.key, r.source_key, r.target_key, r.weight
       FROM json_each(?) wanted JOIN relationships r ON r.key = wanted.value`,
      idList(changedKeys),
    );
    removeEdges(snapshot, changedKeys);
    for (const key of changedKeys) {
      snapshot.records.delete(key);
      snapshot.descriptions.delete(key);
    }
    snapshot.counted.clear();
    // A per-entity snapshot takes a changed edge only into the lists it keeps complete.
    const { whole, loaded } = snapshot;
    for (const row of current)
      if (whole || loaded.has(row.source_key) || loaded.has(row.target_key)) this.addEdge(snapshot, row);
    snapshot.version = version;
    snapshot.lastChange = changes.at(-1)?.id ?? snapshot.lastChange;
    // A whole graph that grew past the cap is read per entity from now on.
    if (whole && snapshot.edges.size > this.maxWholeGraphEdges) return this.rebuild(version);
    return snapshot;
  }

  private addEdge(snapshot: Snapshot, row: EdgeRow): void {
    addEdge(snapshot, row, {
      edge: this.edgeOrdinals.of(row.key),
      source: this.entityOrdinals.of(row.source_key),
      target: this.entityOrdinals.of(row.target_key),
    });
  }

  /**
   * Whether the whole graph fits the cap. The highest rowid bounds the count from above and is one
   * b-tree descent; counting 2M rows on a cold disk took 7 s, so it runs only when the bound says
   * the graph may be too large.
   */
  private wholeGraphFits(): boolean {
    if (this.maxWholeGraphEdges === Number.POSITIVE_INFINITY) return true;
    const highestSeq = this.sql.column<number>("SELECT coalesce(max(seq), 0) FROM relationships")[0] ?? 0;
    if (highestSeq <= this.maxWholeGraphEdges) return true;
    return (this.sql.column<number>("SELECT count(*) FROM relationships")[0] ?? 0) <= this.maxWholeGraphEdges;
  }

  /** The highest id ever logged (pruning keeps the newest row). */
  private lastLoggedChange(): number {
    return this.sql.column<number>("SELECT coalesce(max(id), 0) FROM relationship_changes")[0] ?? 0;
  }

  private prunedThrough(): number {
    return changesPrunedThrough(this.sql);
  }
}

/** How far writers have pruned the change log (0 before the first prune). */
export function changesPrunedThrough(sql: Sql): number {
  const value = sql.column<string>(
    "SELECT value FROM meta WHERE key = ?",
    RELATIONSHIP_CHANGES_PRUNED_KEY,
  )[0];
  return value === undefined ? 0 : Number(value);
}

/** Numbers handed out to keys in order of first request, never taken back. */
class Ordinals {
  /** Only ever grown: callers may hold them as read-only views. */
  readonly numbers = new Map<string, number>();
  readonly keys: string[] = [];

  get size(): number {
    return this.keys.length;
  }

  of(key: string): number {
    let n = this.numbers.get(key);
    if (n === undefined) {
      n = this.keys.length;
      this.numbers.set(key, n);
      this.keys.push(key);
    }
    return n;
  }
}

function addEdge(
  snapshot: Snapshot,
  { key, source_key, target_key, weight }: EdgeRow,
  ordinals: EdgeOrdinals,
): void {
  const edge: GraphEdge = { key, sourceKey: source_key, targetKey: target_key, weight };
  Object.defineProperty(edge, "ordinals", { value: Object.freeze(ordinals), enumerable: false });
  Object.freeze(edge);
  snapshot.edges.set(key, edge);
  const numbers = { ...ordinals };
  pushEdge(snapshot.byEntity, source_key, {
    key,
    neighbour: target_key,
    neighbourOrdinal: ordinals.target,
    weight,
    edge,
    numbers,
  });
  snapshot.sorted.delete(source_key);
  if (target_key !== source_key) {
    pushEdge(snapshot.byEntity, target_key, {
      key,
      neighbour: source_key,
      neighbourOrdinal: ordinals.source,
      weight,
      edge,
      numbers,
    });
    snapshot.sorted.delete(target_key);
  }
}

/**
 * The entity's list in SQLite's key order, sorted in place once: a hub's thousands of edges are
 * asked for query after query. Removing edges keeps the order; adding one forgets it (addEdge).
 */
function sortedEdges(snapshot: Snapshot, entity: string): AdjacentEdge[] {
  const edges = snapshot.byEntity.get(entity);
  if (!edges) return [];
  if (!snapshot.sorted.has(entity)) {
    sortLikeSqlite(edges);
    snapshot.sorted.add(entity);
  }
  return edges;
}

function pushEdge(byEntity: Map<string, AdjacentEdge[]>, entity: string, edge: AdjacentEdge): void {
  const edges = byEntity.get(entity);
  if (edges) edges.push(edge);
  else byEntity.set(entity, [edge]);
}

/** Drops every edge a per-entity snapshot read (records and descriptions have caps of their own). */
function forgetEdges(snapshot: Snapshot): void {
  snapshot.byEntity.clear();
  snapshot.sorted.clear();
  snapshot.edges.clear();
  snapshot.loaded.clear();
}

/** Drops the edges from the adjacency, filtering each touched entity's list once (hubs have thousands). */
function removeEdges(snapshot: Snapshot, keys: Set<string>): void {
  const touched = new Set<string>();
  for (const key of keys) {
    const edge = snapshot.edges.get(key);
    if (!edge) continue;
    snapshot.edges.delete(key);
    touched.add(edge.sourceKey).add(edge.targetKey);
  }
  for (const entity of touched) {
    const remaining = (snapshot.byEntity.get(entity) ?? []).filter((edge) => !keys.has(edge.key));
    if (remaining.length > 0) snapshot.byEntity.set(entity, remaining);
    else snapshot.byEntity.delete(entity);
  }
}

/** Callers may change what they get; the cache keeps its own. */
function copy(record: RelationshipRecord): RelationshipRecord {
  return {
    ...record,
    fragments: [...record.fragments],
    keywords: [...record.keywords],
    sourceChunkIds: [...record.sourceChunkIds],
  };
}

/**
 * SQLite's BINARY collation compares UTF-8 bytes, which is code point order. JavaScript's `<`
 * compares UTF-16 units and differs only for text with surrogate pairs, so only that needs the
 * slower comparison.
 */
function sortLikeSqlite<T extends { key: string }>(items: T[]): T[] {
  if (!items.some(({ key }) => /[\uD800-\uDFFF]/.test(key)))
    return items.sort(({ key: a }, { key: b }) => (a < b ? -1 : a > b ? 1 : 0));
  return items.sort((a, b) => compareCodePoints(a.key, b.key));
}

/**
 * The `limit` items of highest weight, strongest first, ties in key order. Only the items at or
 * above the limit's weight are ranked, weight by weight: the weights of a graph repeat (most
 * relationships of a neighbourhood share a handful), so each group is sorted on keys alone.
 */
function strongestFirst<T extends { key: string; weight: number }>(items: T[], limit: number): T[] {
  if (limit <= 0) return [];
  const threshold = weightAtRank(
    Float64Array.from(items, ({ weight }) => weight),
    limit,
  );
  const byWeight = new Map<number, T[]>();
  for (const item of items) {
    if (item.weight < threshold) continue;
    const group = byWeight.get(item.weight);
    if (group) group.push(item);
    else byWeight.set(item.weight, [item]);
  }
  const ranked: T[] = [];
  for (const weight of [...byWeight.keys()].sort((a, b) => b - a)) {
    for (const item of sortLikeSqlite(byWeight.get(weight) as T[])) {
      if (ranked.length === limit) return ranked;
      ranked.push(item);
    }
  }
  return ranked;
}

/** The `rank`-th highest of the weights (sorted in place), or -Infinity when there are no more than `rank`. */
function weightAtRank(weights: Float64Array, rank: number): number {
  if (weights.length <= rank) return Number.NEGATIVE_INFINITY;
  return weights.sort()[weights.length - rank] as number;
}

function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i] as string).codePointAt(0)! - (y[i] as string).codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}
