import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { loadSources } from "../../ingest/loaders.js";
import type { Kgrag } from "../../kgrag.js";
import { textFromChunks } from "../../pipeline/stored-text.js";
import type { SourceDocument, SourceDocumentInput } from "../../types.js";
import type { IndexSummary } from "../../workspace/indexing.js";
import { uploadFolderOf } from "../upload-folder.js";
import type { JobError, JobSpec, WorkerMessage } from "./job-types.js";

type Finished = Extract<WorkerMessage, { type: "finished" }>;

/**
 * Runs one job on an open workspace (in the job process); what it returns ends the job. `signal`
 * stops an index job at its next safe point (IndexInterruptedError); deletes and re-indexes are
 * short and finish.
 */
export async function runJobSpec(kgrag: Kgrag, spec: JobSpec, signal?: AbortSignal): Promise<Finished> {
  if (spec.kind === "delete") return deleteJob(kgrag, spec.docIds);
  if (spec.kind === "reindex") return reindexJob(kgrag, spec.docId);
  const summaries: IndexSummary[] = [];
  const options = signal ? { signal } : {};
  if (spec.files.length > 0) summaries.push(await kgrag.index(spec.files, options));
  if (spec.texts.length > 0) summaries.push(await kgrag.index(spec.texts, options));
  // An upload that made no document (an empty file) is not kept.
  return { ...finishedFrom(summaries), unusedUploads: await unusedUploads(kgrag, spec.files) };
}

/**
 * The uploaded files among `paths` that no document comes from any more. Only files right in the
 * workspace's upload folder: a document indexed from elsewhere (by the CLI) keeps its file. The
 * server removes them (see JobQueue), not this process: it knows whether a job queued since, for
 * the same name uploaded again, will read one.
 */
async function unusedUploads(kgrag: Kgrag, paths: readonly (string | null)[]): Promise<string[]> {
  const folder = uploadFolderOf(kgrag.services.config.workspace);
  const uploads = new Set(
    paths
      .filter((path): path is string => path !== null)
      .map((path) => resolve(path))
      .filter((path) => dirname(path) === folder),
  );
  if (uploads.size === 0) return [];
  for (const doc of await kgrag.services.store.listDocuments())
    if (doc.path) uploads.delete(resolve(doc.path));
  return [...uploads];
}

async function deleteJob(kgrag: Kgrag, docIds: string[]): Promise<Finished> {
  const { store } = kgrag.services;
  const paths = (await Promise.all(docIds.map((id) => store.getDocument(id)))).map(
    (doc) => doc?.path ?? null,
  );
  const { deleted, missing } = await kgrag.deleteDocuments(docIds);
  return {
    type: "finished",
    // The last document from an uploaded file takes the file with it.
    unusedUploads: await unusedUploads(kgrag, paths),
    documents: deleted,
    errors: missing.map((id) => ({ documentId: id, message: "no such document" })),
    message: `${deleted.length} document(s) deleted`,
  };
}

/**
 * Extracts a document again from scratch: as its file holds it now when it came from one, else
 * from its stored text. Only this document: a JSONL file's other lines (some perhaps deleted
 * since) are left as they are.
 */
async function reindexJob(kgrag: Kgrag, docId: string): Promise<Finished> {
  const { store } = kgrag.services;
  const doc = await store.getDocument(docId);
  if (!doc)
    return {
      type: "finished",
      documents: [],
      errors: [{ documentId: docId, message: "no such document" }],
      message: "nothing to re-index",
    };
  const fileThere = doc.path !== null && existsSync(doc.path);
  const fromFile = fileThere ? await documentInFile(doc.path as string, docId) : undefined;
  const source: SourceDocumentInput = fromFile ?? {
    id: doc.id,
    title: doc.title,
    text: textFromChunks(await store.listChunks(docId)),
    metadata: doc.metadata,
    path: doc.path,
  };
  await kgrag.deleteDocuments([docId]);
  const finished = finishedFrom([await kgrag.index([source])]);
  // Asked for the file's content and given the stored text instead: the job says so.
  if (doc.path === null || fromFile) return finished;
  const why = fileThere ? "no longer holds this document" : "is gone";
  return {
    ...finished,
    message: `${finished.message}; ${doc.path} ${why}, so it was re-indexed from its stored text`,
  };
}

/** The document `id` as the file at `path` gives it now; undefined when the file no longer does. */
async function documentInFile(path: string, id: string): Promise<SourceDocument | undefined> {
  const { documents } = await loadSources([path]);
  return documents.find((document) => document.id === id);
}

/** What an index job's message counts and lists of each run's summary. */
export type JobSummary = Pick<
  IndexSummary,
  "added" | "updated" | "resumed" | "unchanged" | "metadataUpdated" | "failures" | "skipped"
>;

export function finishedFrom(summaries: JobSummary[]): Finished {
  // Failed documents are stored (and listed with their error); skipped inputs made none.
  const documents = [
    ...new Set(
      summaries.flatMap((s) => [
        ...s.added,
        ...s.updated,
        ...s.resumed,
        ...s.unchanged,
        ...s.metadataUpdated,
        ...s.failures.map((f) => f.docId),
      ]),
    ),
  ];
  const errors: JobError[] = summaries.flatMap((s) => [
    ...s.failures.map((f) => ({ documentId: f.docId, message: f.error })),
    ...s.skipped.map((k) => ({
      file: k.path,
      ...(k.docId ? { documentId: k.docId } : {}),
      message: k.reason,
    })),
  ]);
  // A document left pending by an interrupted run and finished now was indexed by this job too;
  // one that failed (again) was not, whichever list it came in by.
  const failed = new Set(summaries.flatMap((s) => s.failures.map((f) => f.docId)));
  const succeeded = (ids: string[]) => ids.filter((id) => !failed.has(id)).length;
  const resumed = summaries.reduce((n, s) => n + succeeded(s.resumed), 0);
  const indexed = summaries.reduce((n, s) => n + succeeded(s.added) + succeeded(s.updated), resumed);
  const unchanged = summaries.reduce((n, s) => n + s.unchanged.length, 0);
  const metadataUpdated = summaries.reduce((n, s) => n + s.metadataUpdated.length, 0);
  const ofWhich = resumed > 0 ? ` (${resumed} resumed)` : "";
  const metadataPart = metadataUpdated > 0 ? `, ${metadataUpdated} metadata updated` : "";
  return {
    type: "finished",
    documents,
    errors,
    message: `${indexed} document(s) indexed${ofWhich}${metadataPart}, ${unchanged} unchanged, ${errors.length} error(s)`,
  };
}
