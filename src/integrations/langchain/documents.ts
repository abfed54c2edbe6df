import { basename } from "node:path";
import type { Metadata, SourceDocumentInput } from "../../types.js";
import { hashText } from "../../util/hash.js";

/**
 * A LangChain `Document` as any document loader returns it, described by shape so that the core
 * library does not load @langchain/core to accept one.
 */
export interface LangChainDocumentLike {
  pageContent: string;
  metadata?: Record<string, unknown>;
  id?: string;
}

export function isLangChainDocument(value: unknown): value is LangChainDocumentLike {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { pageContent?: unknown }).pageContent === "string"
  );
}

/**
 * Loader output as kgrag documents. The id is the document's own id, else its source (with the page
 * for per-page loaders such as PDFLoader), else a hash of its text; repeats get #2, #3... in order,
 * so indexing the same loader output again updates instead of duplicating. Nested metadata is
 * flattened to dotted keys; values that are neither text, number nor boolean are left out.
 */
export function fromLangChainDocuments(documents: readonly LangChainDocumentLike[]): SourceDocumentInput[] {
  const seen = new Map<string, number>();
  return documents.map((doc) => {
    const metadata = flattenMetadata(doc.metadata ?? {});
    const base = baseId(doc, metadata);
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    const source = typeof metadata.source === "string" ? metadata.source : undefined;
    return {
      id: count === 1 ? base : `${base}#${count}`,
      title: titleOf(metadata, source, base),
      text: doc.pageContent,
      path: null,
      metadata,
    };
  });
}

function baseId(doc: LangChainDocumentLike, metadata: Metadata): string {
  const own = doc.id ?? metadata.id;
  if (own !== undefined && String(own).trim() !== "") return String(own);
  const source = metadata.source;
  if (typeof source !== "string" || source === "") return `lc-${hashText(doc.pageContent)}`;
  const page = metadata["loc.pageNumber"];
  return page === undefined ? source : `${source}#page=${page}`;
}

function titleOf(metadata: Metadata, source: string | undefined, id: string): string {
  const title = metadata.title ?? metadata["pdf.info.Title"];
  if (typeof title === "string" && title.trim() !== "") return title;
  return source ? basename(source) : id;
}

function flattenMetadata(value: Record<string, unknown>, prefix = "", out: Metadata = {}): Metadata {
  for (const [key, item] of Object.entries(value)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (typeof item === "string" || typeof item === "boolean") out[name] = item;
    else if (typeof item === "number" && Number.isFinite(item)) out[name] = item;
    else if (item !== null && typeof item === "object" && !Array.isArray(item))
      flattenMetadata(item as Record<string, unknown>, name, out);
  }
  return out;
}
