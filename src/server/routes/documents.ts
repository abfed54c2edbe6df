import { createWriteStream, renameSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { fileDocumentId, SUPPORTED_EXTENSIONS } from "../../ingest/loaders.js";
import { MetadataPatchSchema } from "../../pipeline/document-metadata.js";
import { referenceTitle } from "../../query/context/references.js";
import type { DocumentRecord } from "../../types.js";
import { hashText } from "../../util/hash.js";
import {
  DOCUMENT_STATUSES,
  type ShownDocumentStatus,
  shownDocumentStatus,
} from "../../workspace/document-status.js";
import type { ServerContext } from "../context.js";
import { editorOf } from "../editor.js";
import { ApiError, badRequest, notFound, unsupportedMediaType } from "../errors.js";
import { queryNumber } from "../query-number.js";
import { workspaceOf } from "../request-workspace.js";
import { hideServerPaths, shownMetadata } from "../server-paths.js";
import { uploadPath } from "../upload-names.js";
import type { ServedWorkspace } from "../workspaces.js";

const MetadataSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

const TextsBodySchema = z.object({
  documents: z
    .array(
      z.object({
        text: z.string().trim().min(1, "text must not be empty"),
        title: z.string().min(1).optional(),
        id: z.string().min(1).max(200).optional(),
        metadata: MetadataSchema.optional(),
      }),
    )
    .min(1, "documents must hold at least one document"),
});

/** The store's names for its states (which `kgrag status` showed before it used the API's), as the API names them. */
const STATUS_SYNONYMS: Record<string, ShownDocumentStatus> = { processed: "indexed", processing: "pending" };

const StatusFilterSchema = z.preprocess(
  // Any case, spaces around ignored: "Indexed" as well as "PROCESSED ".
  (value) => {
    if (typeof value !== "string") return value;
    const status = value.trim().toLowerCase();
    return STATUS_SYNONYMS[status] ?? status;
  },
  z.enum([...DOCUMENT_STATUSES, ""], {
    error: (issue) =>
      `${JSON.stringify(issue.input)} is not a status; use one of ${DOCUMENT_STATUSES.join(", ")} ` +
      "(processed is indexed)",
  }),
);

const ListQuerySchema = z.object({
  offset: queryNumber(0, Number.MAX_SAFE_INTEGER, 0),
  limit: queryNumber(1, 2000, 50),
  status: StatusFilterSchema.optional(),
  q: z.string().optional(),
  /** Newest first by default, so a new upload is on the first page of a large workspace. */
  sort: z.enum(["newest", "oldest"]).default("newest"),
  workspace: z.string().optional(),
});

const IdParamsSchema = z.object({ id: z.string().min(1) });

const MetadataBodySchema = z
  .object({ metadata: MetadataPatchSchema, by: z.string().trim().min(1).max(100).optional() })
  .strict();

export async function documentRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    "/api/v1/documents",
    {
      schema: {
        tags: ["documents"],
        summary: `Upload files (multipart field \`${UPLOAD_FIELD}\`) and index them in a background job`,
        consumes: ["multipart/form-data"],
      },
    },
    async (request, reply) => {
      const workspace = workspaceOf(request, ctx.registry);
      if (!request.isMultipart())
        throw unsupportedMediaType(`Send the files as multipart/form-data, field \`${UPLOAD_FIELD}\``);
      const saved = await saveUploads(workspace, request.files(), ctx.config.upload);
      const job = workspace.jobs.add({ kind: "index", files: saved, texts: [] }, saved.map(fileDocumentId));
      return reply.status(202).send({ job });
    },
  );

  api.get(
    "/api/v1/uploads",
    {
      schema: {
        tags: ["documents"],
        summary:
          "What an upload takes (file types, limits) and the file names uploaded before, with their documents",
      },
    },
    async (request) => {
      const workspace = workspaceOf(request, ctx.registry);
      const { maxFileBytes, maxFiles } = ctx.config.upload;
      return {
        extensions: SUPPORTED_EXTENSIONS,
        maxFileBytes,
        maxFiles,
        files: await uploadedFiles(workspace),
      };
    },
  );

  api.post(
    "/api/v1/documents/texts",
    {
      schema: { tags: ["documents"], summary: "Index raw texts in a background job", body: TextsBodySchema },
    },
    async (request, reply) => {
      const workspace = workspaceOf(request, ctx.registry);
      const texts = request.body.documents.map((d) => ({
        id: d.id ?? `text-${hashText(`${d.title ?? ""}\n${d.text}`)}`,
        title: d.title ?? titleOf(d.text),
        text: d.text,
        metadata: d.metadata ?? {},
      }));
      const ids = texts.map((t) => t.id);
      const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
      if (repeated) throw badRequest(`Document id ${JSON.stringify(repeated)} is given twice`);
      const job = workspace.jobs.add({ kind: "index", files: [], texts }, ids);
      return reply.status(202).send({ job });
    },
  );

  api.get(
    "/api/v1/documents",
    {
      schema: {
        tags: ["documents"],
        summary: "Documents with status and metadata, paged",
        querystring: ListQuerySchema,
      },
    },
    async (request) => {
      const workspace = workspaceOf(request, ctx.registry);
      const { offset, limit, status, q, sort } = request.query;
      const needle = q?.trim().toLowerCase();
      const docs = byCreation(await workspace.kgrag.services.store.listDocuments());
      if (sort === "newest") docs.reverse();
      const rows = docs.map((doc) => documentRow(doc, workspace.path));
      const matching = rows.filter(
        (row) =>
          (!status || row.status === status) &&
          (!needle || row.title.toLowerCase().includes(needle) || row.id.toLowerCase().includes(needle)),
      );
      return { items: matching.slice(offset, offset + limit), total: matching.length };
    },
  );

  api.delete(
    "/api/v1/documents/:id",
    { schema: { tags: ["documents"], summary: "Delete a document (as a job)", params: IdParamsSchema } },
    async (request, reply) => {
      const workspace = workspaceOf(request, ctx.registry);
      const doc = await mustExist(workspace, request.params.id);
      const job = workspace.jobs.addOnce({ kind: "delete", docIds: [doc.id] }, [doc.id], {
        [doc.id]: referenceTitle(doc),
      });
      return reply.status(202).send({ job });
    },
  );

  api.patch(
    "/api/v1/documents/:id",
    {
      schema: {
        tags: ["documents"],
        summary:
          "Set a document's metadata keys (null removes one) in place, for the query filters: nothing is extracted again",
        description:
          "Keys not named keep their values. `source`, `line`, `format` and `pageStarts` are kgrag's own and " +
          "cannot be edited. The next index of the document's file gives it the file's metadata again. The edit " +
          "is recorded in the workspace history (`GET /api/v1/entities/history`, kind `document`) with `by` (default: " +
          "the API key's number). A job running in the workspace answers 409 `workspace_busy`.",
        params: IdParamsSchema,
        body: MetadataBodySchema,
        querystring: z.object({ workspace: z.string().optional() }),
      },
    },
    async (request) => {
      const workspace = workspaceOf(request, ctx.registry);
      await mustExist(workspace, request.params.id);
      const { id } = request.params;
      const { metadata } = request.body;
      const by = editorOf(request, ctx.config.apiKeys, request.body.by);
      const doc = await workspace.jobs.exclusive(() =>
        workspace.kgrag.updateDocumentMetadata(id, metadata, { by }),
      );
      return { document: documentRow(doc, workspace.path) };
    },
  );

  api.post(
    "/api/v1/documents/:id/reindex",
    {
      schema: { tags: ["documents"], summary: "Extract a document again (as a job)", params: IdParamsSchema },
    },
    async (request, reply) => {
      const workspace = workspaceOf(request, ctx.registry);
      const doc = await mustExist(workspace, request.params.id);
      const job = workspace.jobs.addOnce({ kind: "reindex", docId: doc.id }, [doc.id], {
        [doc.id]: referenceTitle(doc),
      });
      return reply.status(202).send({ job });
    },
  );
}

/**
 * The names in the upload folder that documents came from, with those documents (a JSONL file makes
 * several). A file's document id is made from its path, so uploading a name again replaces them.
 */
async function uploadedFiles(
  workspace: ServedWorkspace,
): Promise<{ name: string; documents: { id: string; title: string }[] }[]> {
  const folder = resolve(workspace.uploadFolder);
  const byName = new Map<string, { id: string; title: string }[]>();
  for (const doc of await workspace.kgrag.services.store.listDocuments()) {
    if (!doc.path || dirname(doc.path) !== folder) continue;
    const name = basename(doc.path);
    const documents = byName.get(name) ?? [];
    documents.push({ id: doc.id, title: doc.title });
    byName.set(name, documents);
  }
  return [...byName].sort(([a], [b]) => a.localeCompare(b)).map(([name, documents]) => ({ name, documents }));
}

async function mustExist(workspace: ServedWorkspace, id: string): Promise<DocumentRecord> {
  const doc = await workspace.kgrag.services.store.getDocument(id);
  if (!doc) throw notFound(`Document ${JSON.stringify(id)}`);
  return doc;
}

/** The multipart field that carries an upload's files (docs/api.md; the web app sends them so). */
const UPLOAD_FIELD = "files";

interface UploadPart {
  type: "file";
  fieldname: string;
  filename: string;
  file: NodeJS.ReadableStream;
}

/**
 * Every part written under a temporary name first, then renamed: a refused or cut-off upload leaves
 * no file, and replaces no earlier upload of the same name.
 */
async function saveUploads(
  workspace: ServedWorkspace,
  parts: AsyncIterable<UploadPart>,
  limits: { maxFileBytes: number; maxFiles: number },
): Promise<string[]> {
  await mkdir(workspace.uploadFolder, { recursive: true });
  const written: { temp: string; final: string }[] = [];
  try {
    for await (const part of parts) {
      mustBeUploadField(part);
      const final = uploadPath(workspace.uploadFolder, part.filename);
      mustBeNew(part, final, written);
      const temp = `${final}.${process.pid}.${Date.now()}.part`;
      written.push({ temp, final });
      await pipeline(part.file, createWriteStream(temp));
    }
  } catch (error) {
    await Promise.all(written.map((w) => rm(w.temp, { force: true })));
    throw limitReached(error, limits) ?? malformedBody(error) ?? error;
  }
  if (written.length === 0)
    throw badRequest(`No file in the upload: send them in the multipart field \`${UPLOAD_FIELD}\``);
  // Renamed at once, and the caller queues their job with no pause in between: a job that ends
  // meanwhile and removes unused uploads (JobQueue.removeUploads) sees the new job queued.
  for (const w of written) renameSync(w.temp, w.final);
  return written.map((w) => w.final);
}

/**
 * A name sent twice in one upload is refused: both parts would be stored at one path, the last
 * silently replacing the first (the web app leaves such a file out, saying why).
 */
function mustBeNew(part: UploadPart, final: string, written: readonly { final: string }[]): void {
  if (!written.some((w) => w.final === final)) return;
  part.file.resume();
  throw badRequest(
    `File name ${JSON.stringify(part.filename)} is sent twice in this upload; a name is one document, so send each name once`,
    "bad_file_name",
  );
}

/**
 * A file under another field is refused, not indexed: a client that names the field wrongly (or
 * sends a file meant for something else beside the upload) hears so instead of indexing it.
 */
function mustBeUploadField(part: UploadPart): void {
  if (part.fieldname === UPLOAD_FIELD) return;
  part.file.resume();
  throw badRequest(
    `A file part is named ${JSON.stringify(part.fieldname)}; send files in the multipart field \`${UPLOAD_FIELD}\``,
  );
}

/** An upload past a limit, with the limit and the setting that raises it named. */
function limitReached(
  error: unknown,
  limits: { maxFileBytes: number; maxFiles: number },
): ApiError | undefined {
  const code = error instanceof Error && "code" in error ? error.code : undefined;
  if (code === "FST_REQ_FILE_TOO_LARGE") {
    const bytes = limits.maxFileBytes.toLocaleString("en");
    return new ApiError(
      413,
      "file_too_large",
      `A file is larger than the upload limit of ${bytes} bytes per file (KGRAG_UPLOAD_MAX_MB)`,
    );
  }
  if (code === "FST_FILES_LIMIT")
    return new ApiError(
      413,
      "too_many_files",
      `More than ${limits.maxFiles} files in one upload (KGRAG_UPLOAD_MAX_FILES)`,
    );
  return undefined;
}

/**
 * The multipart parser's own complaints (no boundary, a body cut short) are plain errors without a
 * code; limits, refused names and the file system's errors all carry one and keep their status.
 */
function malformedBody(error: unknown): ApiError | undefined {
  // A plain Error, not a subclass: a TypeError from a bug here stays a 500.
  if (!(error instanceof Error) || error.constructor !== Error || "code" in error) return undefined;
  return badRequest(`Malformed multipart/form-data body: ${error.message}`, "bad_multipart");
}

function titleOf(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** Oldest first: by when each was first added, ties by id, whatever order the store lists them in. */
function byCreation(docs: DocumentRecord[]): DocumentRecord[] {
  return docs.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

function documentRow(doc: DocumentRecord, workspace: string) {
  return {
    id: doc.id,
    title: doc.title,
    status: shownDocumentStatus(doc),
    chunks: doc.chunkCount,
    ...(doc.error ? { error: hideServerPaths(doc.error, workspace) } : {}),
    metadata: shownMetadata(doc.metadata, doc.path, workspace),
    updatedAt: doc.updatedAt,
  };
}
