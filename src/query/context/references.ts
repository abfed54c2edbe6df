import { pageStartsOf, pagesOfSpan } from "../../ingest/pdf-pages.js";
import type { GraphStore } from "../../storage/graph-store.js";
import type { ChunkRecord, DocumentRecord } from "../../types.js";
import type { Reference } from "../result.js";

/**
 * Numbers the context's chunks 1..n in rank order and says where each comes from: document,
 * title (or file name), chunk and character span, so an [n] in the answer leads to the exact passage.
 */
export function numberReferences(chunks: ChunkRecord[], titles: Map<string, string>): Reference[] {
  return chunks.map((chunk, i) => ({
    n: i + 1,
    docId: chunk.docId,
    title: titles.get(chunk.docId) ?? chunk.docId,
    chunkId: chunk.id,
    start: chunk.start,
    end: chunk.end,
  }));
}

/**
 * Document id -> how a reference names it (see referenceTitle). The reads overlap: on a networked
 * store (Neo4j) one after another would cost a round trip per cited document.
 */
export async function documentTitles(
  store: Pick<GraphStore, "getDocument">,
  docIds: string[],
): Promise<Map<string, string>> {
  const ids = [...new Set(docIds)];
  const docs = await Promise.all(ids.map((id) => store.getDocument(id)));
  const titles = new Map<string, string>();
  for (const doc of docs) if (doc) titles.set(doc.id, referenceTitle(doc));
  return titles;
}

/**
 * A document's title, else its file's name, else its id. Never the file's path: that is a folder
 * on the indexing machine, which answers (and the server's clients) have no business reading.
 */
export function referenceTitle(doc: Pick<DocumentRecord, "id" | "title" | "path">): string {
  return doc.title || fileName(doc.path) || doc.id;
}

/** The last part of a POSIX or Windows path ("" for none). */
function fileName(path: string | null): string {
  return path?.split(/[/\\]/).findLast((part) => part.trim() !== "") ?? "";
}

/** References into paged documents (PDF) get the page of their passage, and its last page when it spans two. */
export async function withPages<R extends Reference>(store: GraphStore, references: R[]): Promise<R[]> {
  // Read together, like the titles above.
  const docIds = [...new Set(references.map((r) => r.docId))];
  const docs = await Promise.all(docIds.map((id) => store.getDocument(id)));
  const starts = new Map(docIds.map((id, i) => [id, docs[i] && pageStartsOf(docs[i].metadata)]));
  return references.map((reference) => {
    const pageStarts = starts.get(reference.docId);
    if (!pageStarts) return reference;
    const { page, pageEnd } = pagesOfSpan(pageStarts, reference.start, reference.end);
    return { ...reference, page, ...(pageEnd === page ? {} : { pageEnd }) };
  });
}
