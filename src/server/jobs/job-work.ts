import { existsSync } from "node:fs";
import type { Kgrag } from "../../kgrag.js";
import type { ChunkRecord } from "../../types.js";
import type { IndexSummary } from "../../workspace/indexing.js";
import type { JobError, JobSpec, WorkerMessage } from "./job-types.js";

type Finished = Extract<WorkerMessage, { type: "finished" }>;

/** Runs one job on an open workspace (in the job process); what it returns ends the job. */
export async function runJobSpec(kgrag: Kgrag, spec: JobSpec): Promise<Finished> {
  if (spec.kind === "delete") return deleteJob(kgrag, spec.docIds);
  if (spec.kind === "reindex") return reindexJob(kgrag, spec.docId);
  const summaries: IndexSummary[] = [];
  if (spec.files.length > 0) summaries.push(await kgrag.index(spec.files));
  if (spec.texts.length > 0) summaries.push(await kgrag.index(spec.texts));
  return finishedFrom(summaries);
}

async function deleteJob(kgrag: Kgrag, docIds: string[]): Promise<Finished> {
  const { deleted, missing } = await kgrag.deleteDocuments(docIds);
  return {
    type: "finished",
    documents: deleted,
    errors: missing.map((id) => ({ documentId: id, message: "no such document" })),
    message: `${deleted.length} document(s) deleted`,
  };
}

/** Extracts a document again from scratch: its file when it came from one, else its stored text. */
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
  const fromFile = doc.path !== null && existsSync(doc.path);
  const text = fromFile ? "" : textFromChunks(await store.listChunks(docId));
  await kgrag.deleteDocuments([docId]);
  const summary = fromFile
    ? await kgrag.index([doc.path as string])
    : await kgrag.index([{ id: doc.id, title: doc.title, text, metadata: doc.metadata }]);
  return finishedFrom([summary]);
}

/** A document's text put back together from its chunks, whose offsets may overlap. */
export function textFromChunks(chunks: ChunkRecord[]): string {
  let text = "";
  for (const chunk of [...chunks].sort((a, b) => a.start - b.start)) {
    if (chunk.end <= text.length) continue;
    text += chunk.text.slice(Math.max(0, text.length - chunk.start));
  }
  return text;
}

function finishedFrom(summaries: IndexSummary[]): Finished {
  const documents = summaries.flatMap((s) => [...s.added, ...s.updated, ...s.resumed, ...s.unchanged]);
  const errors: JobError[] = summaries.flatMap((s) => [
    ...s.failures.map((f) => ({ documentId: f.docId, message: f.error })),
    ...s.skipped.map((k) => ({
      file: k.path,
      ...(k.docId ? { documentId: k.docId } : {}),
      message: k.reason,
    })),
  ]);
  const added = summaries.reduce((n, s) => n + s.added.length + s.updated.length, 0);
  const unchanged = summaries.reduce((n, s) => n + s.unchanged.length, 0);
  return {
    type: "finished",
    documents,
    errors,
    message: `${added} document(s) indexed, ${unchanged} unchanged, ${errors.length} error(s)`,
  };
}
