import type { MetadataPatch } from "../../pipeline/document-metadata.js";
import type { DocumentRecord } from "../../types.js";
import type { DocsMetaOptions } from "../commands/docs.js";
import type { OpenKgrag } from "../open.js";
import { formatTable } from "../output.js";
import { printJson } from "../print-json.js";
import { parseKeyValues } from "../query-flags.js";
import { UsageError } from "../usage-error.js";

/**
 * `kgrag docs meta <id> key=value ... --unset key`: the document's record updated in place (the
 * library's updateDocumentMetadata, recorded in the history); with nothing to set or remove, its
 * metadata printed.
 */
export async function docsMetaAction(
  open: OpenKgrag,
  docId: string,
  pairs: string[],
  opts: DocsMetaOptions,
): Promise<void> {
  const patch = patchOf(pairs, opts.unset ?? []);
  const kgrag = await open(opts);
  try {
    const doc =
      Object.keys(patch).length === 0
        ? await documentOf(kgrag.services.store, docId)
        : await kgrag.updateDocumentMetadata(docId, patch, opts.by ? { by: opts.by } : {});
    if (opts.json) printJson({ id: doc.id, title: doc.title, metadata: doc.metadata });
    else process.stdout.write(metadataTable(doc));
  } finally {
    await kgrag.close();
  }
}

/** The flags as one patch: a key both set and removed is refused, as `--meta` refuses a key given twice. */
function patchOf(pairs: string[], unset: string[]): MetadataPatch {
  // `--unset` takes every word after it: `--unset b a=1` would remove a key named "a=1".
  const swallowed = unset.find((key) => key.includes("="));
  if (swallowed) {
    throw new UsageError(
      `docs meta: --unset takes keys, got "${swallowed}"; put key=value pairs before --unset.`,
    );
  }
  const set = parseKeyValues(pairs, "docs meta", "a document has one value per key");
  const both = unset.find((key) => Object.hasOwn(set, key));
  if (both) throw new UsageError(`docs meta: ${both} is both set and --unset; give it once.`);
  return { ...set, ...Object.fromEntries(unset.map((key) => [key, null])) };
}

async function documentOf(
  store: { getDocument(id: string): Promise<DocumentRecord | undefined> },
  docId: string,
): Promise<DocumentRecord> {
  const doc = await store.getDocument(docId);
  if (!doc) {
    throw new UsageError(
      `No document with id ${JSON.stringify(docId)} in this workspace. \`kgrag status\` lists the document ids.`,
    );
  }
  return doc;
}

function metadataTable(doc: DocumentRecord): string {
  const rows = Object.entries(doc.metadata)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => [key, String(value)]);
  return `${doc.title} (${doc.id})\n${formatTable(["key", "value"], rows)}\n`;
}
