import type { RelationshipRecord } from "../../types.js";
import type { GraphEdge } from "../graph-store.js";
import type { Sql } from "./connection.js";

/** Cached records beyond this are dropped all at once, so memory stays bounded on huge graphs. */
const MAX_CACHED_RECORDS = 100_000;

/** One relationship as seen from one of its endpoints. */
interface AdjacentEdge {
  key: string;
  /** The other endpoint (the entity itself for a self-loop). */
  neighbour: string;
  weight: number;
  /** The relationship as a walk sees it, one frozen object shared by both endpoints' lists. */
  edge: GraphEdge;
}

interface Snapshot {
  version: string;
  /** Relationships per entity; a self-loop is listed once. */
  byEntity: Map<string, AdjacentEdge[]>;
  records: Map<string, RelationshipRecord>;
}

/**
 * What graph queries ask of relationships again and again (which edges touch these entities, how
 * many, and the edges themselves), held in memory. Hub entities have thousands of edges, and
 * reading them from SQLite on every query cost tens of milliseconds. Rebuilt when the
 * relationships change: through this connection (the table reports it) or any other (data_version).
 */
export class RelationshipCache {
  private snapshot: Snapshot | undefined;
  private localChanges = 0;

  constructor(
    private readonly sql: Sql,
    private readonly maxCachedRecords = MAX_CACHED_RECORDS,
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
    const { byEntity } = this.current();
    const edges = new Map<string, GraphEdge>();
    for (const entity of entityKeys)
      for (const { edge } of byEntity.get(entity) ?? []) edges.set(edge.key, edge);
    return sortLikeSqlite([...edges.values()]);
  }

  /**
   * Entities related to the frontier and not known yet, by their strongest relationship to it
   * (ties by key), at most `limit`.
   */
  neighbours(frontier: string[], known: Set<string>, limit: number): string[] {
    const { byEntity } = this.current();
    const strongest = new Map<string, number>();
    for (const entity of frontier) {
      for (const { neighbour, weight } of byEntity.get(entity) ?? []) {
        if (known.has(neighbour)) continue;
        const best = strongest.get(neighbour);
        if (best === undefined || weight > best) strongest.set(neighbour, weight);
      }
    }
    return [...strongest]
      .sort(([a, wa], [b, wb]) => wb - wa || compareKeys(a, b))
      .slice(0, limit)
      .map(([key]) => key);
  }

  /** Keys of the relationships with both endpoints among the entities, strongest first (ties by key). */
  keysAmong(entityKeys: Set<string>, limit: number): string[] {
    const { byEntity } = this.current();
    const inside = new Map<string, number>();
    for (const entity of entityKeys) {
      for (const { key, neighbour, weight } of byEntity.get(entity) ?? []) {
        if (entityKeys.has(neighbour)) inside.set(key, weight);
      }
    }
    return [...inside]
      .sort(([a, wa], [b, wb]) => wb - wa || compareKeys(a, b))
      .slice(0, limit)
      .map(([key]) => key);
  }

  /** Relationship count per entity (a self-loop once); the version is checked once per call. */
  degrees(entityKeys: string[]): Map<string, number> {
    const { byEntity } = this.current();
    return new Map(entityKeys.map((key) => [key, byEntity.get(key)?.length ?? 0]));
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

  private current(): Snapshot {
    const version = `${this.sql.dataVersion()}:${this.localChanges}`;
    if (this.snapshot?.version !== version) {
      this.snapshot = { version, byEntity: this.adjacency(), records: new Map() };
    }
    return this.snapshot;
  }

  private adjacency(): Map<string, AdjacentEdge[]> {
    const byEntity = new Map<string, AdjacentEdge[]>();
    const add = (entity: string, edge: AdjacentEdge) => {
      const edges = byEntity.get(entity);
      if (edges) edges.push(edge);
      else byEntity.set(entity, [edge]);
    };
    const rows = this.sql
      .statement("SELECT key, source_key, target_key, weight FROM relationships")
      .iterate() as IterableIterator<{
      key: string;
      source_key: string;
      target_key: string;
      weight: number;
    }>;
    for (const { key, source_key, target_key, weight } of rows) {
      const edge = Object.freeze({ key, sourceKey: source_key, targetKey: target_key, weight });
      add(source_key, { key, neighbour: target_key, weight, edge });
      if (target_key !== source_key) add(target_key, { key, neighbour: source_key, weight, edge });
    }
    return byEntity;
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

/** Key order as SQLite sorts keys (see sortLikeSqlite). */
function compareKeys(a: string, b: string): number {
  if (/[\uD800-\uDFFF]/.test(a) || /[\uD800-\uDFFF]/.test(b)) return compareCodePoints(a, b);
  return a < b ? -1 : a > b ? 1 : 0;
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
