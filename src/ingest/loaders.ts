import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, extname } from "node:path";
import type { Metadata, SourceDocument } from "../types.js";
import { hashText } from "../util/hash.js";
import { issuesLine } from "../util/zod-messages.js";
import { emptySource, hasText } from "./empty-input.js";
import { loadJsonl } from "./jsonl.js";
import { loadDocx, loadPdf } from "./office-formats.js";
import { pageStartsMetadata } from "./pdf-pages.js";
import { skipReason } from "./skip-reason.js";
import { MetadataSchema } from "./source-input.js";
import type { LoadEvent, SkippedSource, SourceFormat } from "./source-types.js";
import { type LoadedText, loadHtml, loadMarkdown, loadPlainText, plainTextTitle } from "./text-formats.js";
import { collectFiles } from "./walk.js";

type WholeFileLoader = (path: string) => Promise<LoadedText>;

/** A Word document's paragraphs are written lines, so its first one may be a title as in a .txt. */
async function loadDocxWithTitle(path: string): Promise<LoadedText> {
  const text = await loadDocx(path);
  return { text, title: plainTextTitle(text) };
}

async function loadPdfWithPages(path: string): Promise<LoadedText> {
  const { text, title, pageStarts } = await loadPdf(path);
  return { text, title, metadata: pageStartsMetadata(pageStarts) };
}

/** Formats whose file is one document. .jsonl (one document a line) is handled apart. */
const WHOLE_FILE_FORMATS: Record<string, { format: SourceFormat; load: WholeFileLoader }> = {
  ".txt": { format: "text", load: loadPlainText },
  ".md": { format: "markdown", load: loadMarkdown },
  ".markdown": { format: "markdown", load: loadMarkdown },
  ".html": { format: "html", load: loadHtml },
  ".htm": { format: "html", load: loadHtml },
  ".pdf": { format: "pdf", load: loadPdfWithPages },
  ".docx": { format: "docx", load: loadDocxWithTitle },
};

export const SUPPORTED_EXTENSIONS = [...Object.keys(WHOLE_FILE_FORMATS), ".jsonl"];
/** `report.pdf.meta.json` holds the metadata of `report.pdf` (of every line, for a .jsonl file). */
export const SIDECAR_SUFFIX = ".meta.json";

/**
 * Loads files and folders into documents. Unsupported, unreadable or empty files (and bad or empty
 * .jsonl lines) come back in `skipped` with a reason; an empty or unreadable file, and an empty
 * line, also name the document they would be.
 */
export async function loadSources(
  paths: string[],
  options: LoadOptions = {},
): Promise<{ documents: SourceDocument[]; skipped: SkippedSource[] }> {
  const documents: SourceDocument[] = [];
  const skipped: SkippedSource[] = [];
  for await (const event of iterateSources(paths, options)) {
    if (event.kind === "document") documents.push(event.document);
    else {
      const { kind: _, ...skip } = event;
      skipped.push(skip);
    }
  }
  return { documents, skipped };
}

export interface LoadOptions {
  /**
   * Metadata every document of these paths gets (`kgrag index --meta key=value`), under what a
   * file's sidecar or a .jsonl line gives and the provenance keys kgrag sets.
   */
  metadata?: Metadata;
}

/** The streaming form of loadSources: documents one at a time, in a deterministic order. */
export async function* iterateSources(paths: string[], options: LoadOptions = {}): AsyncGenerator<LoadEvent> {
  const { files, skipped } = await collectFiles(paths);
  for (const skip of skipped) yield { kind: "skipped", ...skip };
  const jsonlIds = new Map<string, string>();
  const listed = new Set(files);
  const runMetadata = options.metadata ?? {};
  for (const file of files) {
    const extension = extname(file).toLowerCase();
    const described = sidecarOwner(file);
    // A sidecar is read with its file, not indexed; one beside no file it could describe is reported.
    if (described !== null && (listed.has(described) || existsSync(described))) continue;
    if (described !== null)
      yield { kind: "skipped", path: file, reason: `a metadata file for ${described}, which does not exist` };
    else if (extension === ".jsonl") yield* loadJsonlOrExplain(file, jsonlIds, runMetadata);
    else yield await loadWholeFile(file, extension, runMetadata);
  }
}

/**
 * The file a sidecar (`report.pdf.meta.json`) describes, or null for any other file. Lower case
 * only, as readSidecar looks it up: a `.META.JSON` is no sidecar and is loaded like any file.
 */
function sidecarOwner(path: string): string | null {
  return path.endsWith(SIDECAR_SUFFIX) ? path.slice(0, -SIDECAR_SUFFIX.length) : null;
}

/**
 * A file's own metadata, from `<file>.meta.json` beside it: one JSON object of strings, numbers
 * and booleans. Empty when there is none; a sidecar that cannot be used throws, naming it.
 */
async function readSidecar(path: string): Promise<Metadata> {
  const sidecar = `${path}${SIDECAR_SUFFIX}`;
  if (!existsSync(sidecar)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse((await readFile(sidecar, "utf8")).replace(/^\uFEFF/, ""));
  } catch (error) {
    throw new SidecarError(`its metadata file ${sidecar} is not valid JSON (${(error as Error).message})`);
  }
  const metadata = MetadataSchema.safeParse(parsed);
  if (!metadata.success) {
    throw new SidecarError(
      `its metadata file ${sidecar} must be one JSON object of strings, numbers and booleans: ${issuesLine(metadata.error)}`,
    );
  }
  return metadata.data;
}

/** A sidecar that cannot be used: its file is skipped with why, rather than indexed without its metadata. */
class SidecarError extends Error {}

async function loadWholeFile(path: string, extension: string, runMetadata: Metadata): Promise<LoadEvent> {
  const handler = WHOLE_FILE_FORMATS[extension];
  if (!handler) {
    const what = extension ? `unsupported file type ${extension}` : "no file extension";
    return { kind: "skipped", path, reason: `${what} (supported: ${SUPPORTED_EXTENSIONS.join(", ")})` };
  }
  try {
    const sidecar = await readSidecar(path);
    const { text, title, metadata } = await handler.load(path);
    if (!hasText(text)) return { kind: "skipped", ...emptySource(path, fileDocumentId(path)) };
    const document = fileDocument(path, handler.format, text, title);
    // The file's own sidecar wins over the run's metadata; what the loader found (PDF pages) over both.
    const merged = { ...runMetadata, ...sidecar, ...document.metadata, ...metadata };
    return { kind: "document", document: { ...document, metadata: merged } };
  } catch (error) {
    if (error instanceof SidecarError) {
      return { kind: "skipped", path, reason: error.message, docId: fileDocumentId(path) };
    }
    // The file is still there: naming its document keeps an indexed version from being taken for gone.
    return { kind: "skipped", path, reason: skipReason(error), docId: fileDocumentId(path) };
  }
}

async function* loadJsonlOrExplain(
  path: string,
  seenIds: Map<string, string>,
  runMetadata: Metadata,
): AsyncGenerator<LoadEvent> {
  try {
    // A .jsonl file's sidecar gives every line defaults, as --meta does; a line's own metadata wins.
    yield* loadJsonl(path, seenIds, { ...runMetadata, ...(await readSidecar(path)) });
  } catch (error) {
    yield { kind: "skipped", path, reason: skipReason(error) };
  }
}

function fileDocument(
  path: string,
  format: SourceFormat,
  text: string,
  title: string | null,
): SourceDocument {
  return {
    id: fileDocumentId(path),
    title: title ?? titleFromFileName(path),
    path,
    text,
    metadata: { source: path, format },
  };
}

/** From the absolute path, not the content: editing a file updates the same document. */
export function fileDocumentId(absolutePath: string): string {
  return `doc-${hashText(absolutePath)}`;
}

/**
 * The title of a file whose content has none: its file name, extension included. A file name is
 * not a subject ("zh.txt", "priya.txt"), and titleEntityName() recognises it as one, so no entity
 * is made of it.
 */
export function titleFromFileName(path: string): string {
  return basename(path);
}
