import { splitRelationshipKey } from "../../merge/keys.js";
import type { VectorItem, VectorNamespace } from "../../types.js";
import { vectorDimension } from "../input-checks.js";
import { int, type Neo4jConnection } from "./connection.js";
import { asNumber, asStrings } from "./read-rows.js";

/**
 * Vectors live on their records as float lists: Chunk, Entity and Community nodes and RELATED
 * edges carry `embedding`, `embeddingHash` and `embeddingNorm` (so zero vectors, which cosine
 * cannot rank, are skipped by exact search).
 */

/** The separator inside relationship keys (see relationshipKey()). */
const PAIR_MARK = "\u001f";

const statement = (ns: VectorNamespace, op: string) => `store/vectors/${ns}/${op}`;

/**
 * Stores the vectors and returns their dimension. `storedDimension` is the namespace's dimension
 * when the caller knows it (it wrote vectors before and deleted none since): otherwise it is read,
 * a scan that cost a round trip per batch of an index run. The caller sees to the vector index.
 */
export async function upsertVectors(
  db: Neo4jConnection,
  ns: VectorNamespace,
  items: VectorItem[],
  storedDimension?: number,
): Promise<number | undefined> {
  if (items.length === 0) return storedDimension;
  const stored = storedDimension ?? (await vectorStats(db, ns, 1)).dimension;
  const dimension = vectorDimension(ns, items, stored);
  const rows = items.map((item) => vectorRow(ns, item));
  await db.write(async (tx) => {
    if (ns !== "relationships") return tx.runBatched(statement(ns, "upsert"), rows);
    // Almost every relationship vector has its edge already: set it through the key index, and
    // anchor only the rest.
    const stored = new Set(
      (await tx.runBatched(statement(ns, "set-on-edges"), rows)).map((r) => String(r.id)),
    );
    return tx.runBatched(
      statement(ns, "upsert"),
      rows.filter((row) => !stored.has(row.id)),
    );
  });
  return dimension;
}

export async function deleteVectors(db: Neo4jConnection, ns: VectorNamespace, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.write(async (tx) => {
    const [row] = await tx.run(statement(ns, "delete"), { ids });
    if (ns === "relationships") {
      await tx.run("store/entity-anchors-prune", {
        keys: asStrings(row?.endpointKeys ?? [], "endpoint keys"),
      });
    }
  });
}

export async function vectorHashes(db: Neo4jConnection, ns: VectorNamespace): Promise<Map<string, string>> {
  const rows = await db.read(statement(ns, "hashes"));
  return new Map(rows.map((r) => [String(r.id), String(r.textHash)]));
}

export async function getVectors(
  db: Neo4jConnection,
  ns: VectorNamespace,
  ids: string[],
): Promise<VectorItem[]> {
  if (ids.length === 0) return [];
  const rows = await db.read(statement(ns, "get"), { ids });
  return rows.map((r) => ({
    id: String(r.id),
    textHash: String(r.textHash),
    vector: (r.vector as number[]).map((x) => asNumber(x, "vector component")),
  }));
}

/** How many vectors the namespace holds, counted up to `limit`, and their dimension (if any). */
export async function vectorStats(
  db: Neo4jConnection,
  ns: VectorNamespace,
  limit: number,
): Promise<{ count: number; dimension: number | undefined }> {
  const [row] = await db.read(statement(ns, "stats"), { limit: int(limit) });
  const dimension = row?.dimension;
  return {
    count: asNumber(row?.count ?? 0, "vector count"),
    dimension:
      dimension === null || dimension === undefined ? undefined : asNumber(dimension, "vector dimension"),
  };
}

interface VectorRow {
  id: string;
  vector: number[];
  textHash: string;
  norm: number;
  sourceKey?: string;
  targetKey?: string;
}

function vectorRow(ns: VectorNamespace, item: VectorItem): VectorRow {
  const row = { id: item.id, vector: item.vector, textHash: item.textHash, norm: norm(item.vector) };
  if (ns !== "relationships") return row;
  // A relationship vector hangs on its RELATED edge, found (or anchored) by the key's two entities;
  // an id that is no pair key gets an anchor self-loop, so any id can hold a vector.
  const [sourceKey, targetKey] = item.id.includes(PAIR_MARK)
    ? splitRelationshipKey(item.id)
    : [item.id, item.id];
  return { ...row, sourceKey, targetKey };
}

export function norm(vector: number[]): number {
  let squares = 0;
  for (const x of vector) squares += x * x;
  return Math.sqrt(squares);
}
