import { z } from "zod";
import { PAGE_STARTS_KEY } from "../ingest/pdf-pages.js";
import { describeGiven, OptionsError } from "../options-error.js";
import { EditorName } from "../resolve/rules.js";
import type { KgragServices } from "../services.js";
import type { DocumentRecord, HistoryEntry, Metadata } from "../types.js";
import { currentUser } from "../util/current-user.js";
import { stableStringify } from "../util/hash.js";
import { parseOptions } from "../util/strict-options.js";
import { issuesLine } from "../util/zod-messages.js";
import { contentHashOf, hasEarlierContentHash, PROVENANCE_KEYS } from "./register-documents.js";
import { textFromChunks } from "./stored-text.js";

/** A change to a document's metadata: each key set to its value, or removed where the value is null. */
export type MetadataPatch = Record<string, string | number | boolean | null>;

/**
 * Keys kgrag writes from where and how a document was read (its file, line, format and PDF page
 * starts, which citations turn into pages): every index of the file sets them again.
 */
const READ_KEYS: ReadonlySet<string> = new Set([...PROVENANCE_KEYS, "format", PAGE_STARTS_KEY]);

/** The same value types as Metadata (src/types.ts), or null to remove the key. */
export const MetadataPatchSchema = z
  .record(
    z.string().trim().min(1, "a key must not be empty"),
    z.union([z.string(), z.number(), z.boolean(), z.null()], {
      error: "must be a string, number, boolean, or null to remove the key",
    }),
    { error: "must be an object of metadata keys and values" },
  )
  .refine((patch) => Object.keys(patch).length > 0, "give at least one key to set or remove")
  .superRefine((patch, ctx) => {
    for (const key of Object.keys(patch).filter((k) => READ_KEYS.has(k))) {
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: "kgrag's own key, set from where the document was read; it cannot be edited",
      });
    }
  });

/** `updateDocumentMetadata` named a document the workspace does not hold: nothing was changed. */
export class UnknownDocumentError extends OptionsError {
  constructor(readonly docId: string) {
    super(
      `No document with id ${JSON.stringify(docId)} in this workspace; nothing was changed. ` +
        "`kgrag status` lists the document ids (over HTTP: GET /api/v1/documents).",
    );
    this.name = "UnknownDocumentError";
  }
}

/** The patch checked, or an OptionsError naming every bad key and value (nothing is written). */
export function parseMetadataPatch(patch: unknown): MetadataPatch {
  const parsed = MetadataPatchSchema.safeParse(patch);
  if (parsed.success) return parsed.data;
  throw new OptionsError(`Invalid metadata: ${issuesLine(parsed.error)}; nothing was changed.`);
}

/** `metadata` with the patch's keys set, and its null keys removed. */
export function patchedMetadata(metadata: Metadata, patch: MetadataPatch): Metadata {
  const result: Metadata = { ...metadata };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = value;
  }
  return result;
}

/**
 * Sets and removes metadata keys of one indexed document, in place: only its record changes (scope
 * filters read metadata from it), so nothing is extracted, embedded or clustered again. The
 * content hash holds the title and text; one stored by an earlier version also holds the metadata,
 * so it is rewritten as the current hash (else the file read with other metadata than the stored
 * one would count as changed). Returns the record as stored after the change.
 */
export async function updateDocumentMetadata(
  services: KgragServices,
  docId: unknown,
  patch: unknown,
  options?: unknown,
): Promise<DocumentRecord> {
  if (typeof docId !== "string" || docId === "") {
    throw new OptionsError(`updateDocumentMetadata takes a document id; got ${describeGiven(docId)}.`);
  }
  const changes = parseMetadataPatch(patch);
  const { by } = parseOptions(MetadataEditOptionsSchema, options, { what: "updateDocumentMetadata" });
  const existing = await services.store.getDocument(docId);
  if (!existing) throw new UnknownDocumentError(docId);
  const metadata = patchedMetadata(existing.metadata, changes);
  if (stableStringify(metadata) === stableStringify(existing.metadata)) return existing;
  const contentHash = await currentContentHash(services, existing);
  const updatedAt = new Date().toISOString();
  const updated = { ...existing, metadata, contentHash, updatedAt };
  await services.store.upsertDocument(updated);
  // After the record: a process killed in between leaves an edit unlisted, never one listed that was not made.
  const entry = metadataHistoryEntry(existing, metadata, by ?? currentUser(), updatedAt);
  await services.store.applyGraphChanges({ ...NO_GRAPH_CHANGES, history: [entry] });
  return updated;
}

export interface MetadataEditOptions {
  /** Who made the edit, for the history (default: $KGRAG_USER or the OS user). */
  by?: string;
}
const MetadataEditOptionsSchema = z.strictObject({
  by: EditorName.transform((name) => name.trim()).optional(),
});

const NO_GRAPH_CHANGES = {
  upsertEntities: [],
  upsertRelationships: [],
  deleteEntityKeys: [],
  deleteRelationshipKeys: [],
};

/**
 * The history entry of a metadata edit, beside the graph's curation: the keys whose value changed,
 * their values before and after (JSON objects; null where the key was absent or is removed), and
 * which keys were set and removed, by whom, in the cause.
 */
export function metadataHistoryEntry(
  before: DocumentRecord,
  metadata: Metadata,
  by: string,
  at: string,
): HistoryEntry {
  const keys = [...new Set([...Object.keys(before.metadata), ...Object.keys(metadata)])]
    .filter((key) => stableStringify(before.metadata[key] ?? null) !== stableStringify(metadata[key] ?? null))
    .sort();
  const valuesIn = (m: Metadata) => Object.fromEntries(keys.map((key) => [key, m[key] ?? null]));
  const set = keys.filter((key) => key in metadata);
  const removed = keys.filter((key) => !(key in metadata));
  const what = [
    ...(set.length > 0 ? [`set ${set.join(", ")}`] : []),
    ...(removed.length > 0 ? [`removed ${removed.join(", ")}`] : []),
  ].join("; ");
  return {
    kind: "document",
    key: before.id,
    action: "update",
    oldDescription: JSON.stringify(valuesIn(before.metadata)),
    newDescription: JSON.stringify(valuesIn(metadata)),
    cause: `metadata ${what} by ${by}`,
    at,
  };
}

/**
 * The record's content hash as this version computes it, when the stored one is an earlier
 * version's (of the title, the text as its chunks give it back, and the metadata stored beside it).
 */
async function currentContentHash(services: KgragServices, record: DocumentRecord): Promise<string> {
  const stored = { title: record.title, text: textFromChunks(await services.store.listChunks(record.id)) };
  return hasEarlierContentHash(record, stored) ? contentHashOf(stored) : record.contentHash;
}
