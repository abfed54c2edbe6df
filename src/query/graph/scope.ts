import type { GraphStore } from "../../storage/graph-store.js";
import type { DocumentRecord, Scope } from "../../types.js";

/**
 * A scope resolved to the ids every retrieval step may consider. An entity or relationship is in
 * scope only when at least one of its source chunks is, so graph expansion cannot carry the
 * answer out of the documents the user chose.
 */
export interface ResolvedScope {
  chunkIds: Set<string>;
  entityKeys: Set<string>;
  relationshipKeys: Set<string>;
}

export type ScopeProblem = "unknown-document" | "unknown-metadata-key" | "unmatched-metadata-value";

/**
 * A scope naming something no document has: almost always a typo, which would otherwise look like
 * "nothing relevant was found". The message lists what does exist.
 */
export class ScopeError extends Error {
  constructor(
    readonly problem: ScopeProblem,
    message: string,
  ) {
    super(message);
    this.name = "ScopeError";
  }
}

/** undefined means "everything": no filter is built, so unscoped queries pay nothing for it. */
export async function resolveScope(
  store: GraphStore,
  scope: Scope | undefined,
): Promise<ResolvedScope | undefined> {
  if (!scope) return undefined;
  await checkScope(store, scope);
  const chunkIds = await store.chunkIdsInScope(scope);
  const mentions =
    chunkIds.size > 0 ? await store.getChunkMentions([...chunkIds]) : { entities: [], relationships: [] };
  return {
    chunkIds,
    entityKeys: new Set(mentions.entities.map((m) => m.entityKey)),
    relationshipKeys: new Set(mentions.relationships.map((m) => m.relationshipKey)),
  };
}

/**
 * Throws a ScopeError when the scope names a document id, a metadata key, or a key's value that no
 * indexed document has. A combination of existing values that matches nothing is not an error.
 */
export async function checkScope(store: GraphStore, scope: Scope | undefined): Promise<void> {
  if (!scope) return;
  const documents = await store.listDocuments();
  checkDocIds(documents, scope.docIds ?? []);
  for (const [key, value] of Object.entries(scope.metadata ?? {})) checkMetadata(documents, key, value);
}

function checkDocIds(documents: DocumentRecord[], docIds: string[]): void {
  const known = new Set(documents.map((d) => d.id));
  const unknown = [...new Set(docIds)].filter((id) => !known.has(id));
  if (unknown.length === 0) return;
  const which = unknown.length === 1 ? "document id" : "document ids";
  throw new ScopeError(
    "unknown-document",
    `Unknown ${which} ${quoteList(unknown)}: no indexed document has ${unknown.length === 1 ? "it" : "them"}. ` +
      "List the documents and their ids with `kgrag status` (over HTTP: GET /api/v1/documents).",
  );
}

function checkMetadata(documents: DocumentRecord[], key: string, value: string): void {
  const values = documents.flatMap((d) => (Object.hasOwn(d.metadata, key) ? [String(d.metadata[key])] : []));
  if (values.length === 0) {
    const keys = documents.flatMap((d) => Object.keys(d.metadata));
    throw new ScopeError(
      "unknown-metadata-key",
      `No document has the metadata key "${key}" (filter ${key}=${value}). ` +
        (keys.length > 0 ? `Keys that exist: ${sample(keys)}.` : "No indexed document has any metadata."),
    );
  }
  if (values.includes(value)) return;
  throw new ScopeError(
    "unmatched-metadata-value",
    `No document has ${key}=${value}. Values of "${key}" that exist: ${sample(values)}.`,
  );
}

const SHOWN = 8;

/** The most common first, so the likely intended one is among the few shown. */
function sample(values: string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const ranked = [...counts.keys()].sort(
    (a, b) => (counts.get(b) ?? 0) - (counts.get(a) ?? 0) || a.localeCompare(b),
  );
  const more = ranked.length - SHOWN;
  return quoteList(ranked.slice(0, SHOWN)) + (more > 0 ? ` (and ${more} more)` : "");
}

function quoteList(items: string[]): string {
  return items.map((item) => `"${item}"`).join(", ");
}
