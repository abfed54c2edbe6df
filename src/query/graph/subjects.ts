import { titleEntityName } from "../../extraction/offline-title.js";
import { entityKey } from "../../merge/keys.js";
import type { QueryGraph } from "./query-graph.js";

/**
 * The chunks whose document is *about* each entity: those of documents whose title names it.
 * A passage about an entity is the best evidence for it, far better than one that merely
 * mentions it in passing, so graph ranking gives an entity's home passages its whole score
 * (a bridge entity reached by the walk then leads to its own passage, the second hop).
 * Only titles are used (data every workspace has); an entity that no title names has no home.
 */
export async function homeChunks(graph: QueryGraph, entityKeys: string[]): Promise<Map<string, Set<string>>> {
  const subjects = await graph.documentSubjects();
  const keys = [...new Set(entityKeys)];
  // Read together: a networked store (Neo4j) answers them in one round trip instead of one each.
  const docIds = [...new Set(keys.flatMap((key) => subjects.get(key) ?? []))];
  const chunksOf = new Map(
    await Promise.all(docIds.map(async (docId) => [docId, await graph.chunkIdsOfDocument(docId)] as const)),
  );
  const homes = new Map<string, Set<string>>();
  for (const key of keys) {
    const homeDocs = subjects.get(key);
    if (homeDocs) homes.set(key, new Set(homeDocs.flatMap((docId) => chunksOf.get(docId) ?? [])));
  }
  return homes;
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
