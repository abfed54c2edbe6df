import { titleEntityName } from "../../extraction/offline-title.js";
import { entityKey } from "../../merge/keys.js";
import type { QueryGraph } from "./query-graph.js";

/**
 * The chunks whose document is *about* each entity: those of documents whose title names it.
 * A passage about an entity is the best evidence for it, far better than one that merely
 * mentions it in passing, so graph ranking gives an entity's home passages its whole score
 * (a bridge entity reached by the walk then leads to its own passage, the second hop).
 * Only titles are used (data every workspace has); an entity that no title names has no home.
 * Each entity's homes are worked out once and kept in the query graph's homeChunkSets.
 */
export async function homeChunks(
  graph: QueryGraph,
  entityKeys: string[],
): Promise<Map<string, ReadonlySet<string>>> {
  const known = graph.homeChunkSets;
  const missing = [...new Set(entityKeys)].filter((key) => !known.has(key));
  if (missing.length) await findHomes(graph, missing);
  const homes = new Map<string, ReadonlySet<string>>();
  for (const key of entityKeys) {
    const home = known.get(key);
    if (home) homes.set(key, home);
  }
  return homes;
}

/** Home chunks of entities not asked for before, into graph.homeChunkSets (null: no title names it). */
async function findHomes(graph: QueryGraph, keys: string[]): Promise<void> {
  const subjects = await graph.documentSubjects();
  // Read together: a networked store (Neo4j) answers them in one round trip instead of one each.
  const docIds = [...new Set(keys.flatMap((key) => subjects.get(key) ?? []))];
  const chunksOf = new Map(
    await Promise.all(docIds.map(async (docId) => [docId, await graph.chunkIdsOfDocument(docId)] as const)),
  );
  for (const key of keys) {
    const homeDocs = subjects.get(key);
    graph.homeChunkSets.set(
      key,
      homeDocs ? new Set(homeDocs.flatMap((docId) => chunksOf.get(docId) ?? [])) : null,
    );
  }
}

/** Entity key -> documents whose title names that entity. */
export function subjectIndex(docs: { id: string; title: string }[]): Map<string, string[]> {
  const index = new Map<string, string[]>();
  for (const doc of docs) {
    const name = titleEntityName(doc.title);
    const key = name ? entityKey(name) : "";
    if (!key) continue;
    const list = index.get(key);
    if (list) list.push(doc.id);
    else index.set(key, [doc.id]);
  }
  return index;
}
