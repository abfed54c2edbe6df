import { basename, extname } from "node:path";
import type { SourceDocument } from "../types.js";
import { hashText } from "../util/hash.js";
import { emptySource, hasText } from "./empty-input.js";
import { loadJsonl } from "./jsonl.js";
import { loadDocx, loadPdf } from "./office-formats.js";
import { pageStartsMetadata } from "./pdf-pages.js";
import { skipReason } from "./skip-reason.js";
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

/**
 * Loads files and folders into documents. Unsupported, unreadable or empty files (and bad or empty
 * .jsonl lines) come back in `skipped` with a reason; an empty or unreadable file, and an empty
 * line, also name the document they would be.
 */
export async function loadSources(
  paths: string[],
): Promise<{ documents: SourceDocument[]; skipped: SkippedSource[] }> {
  const documents: SourceDocument[] = [];
  const skipped: SkippedSource[] = [];
  for await (const event of iterateSources(paths)) {
    if (event.kind === "document") documents.push(event.document);
    else {
      const { kind: _, ...skip } = event;
      skipped.push(skip);
    }
  }
  return { documents, skipped };
}

/** The streaming form of loadSources: documents one at a time, in a deterministic order. */
export async function* iterateSources(paths: string[]): AsyncGenerator<LoadEvent> {
  const { files, skipped } = await collectFiles(paths);
  for (const skip of skipped) yield { kind: "skipped", ...skip };
  const jsonlIds = new Map<string, string>();
  for (const file of files) {
    const extension = extname(file).toLowerCase();
    if (extension === ".jsonl") yield* loadJsonlOrExplain(file, jsonlIds);
    else yield await loadWholeFile(file, extension);
  }
}

async function loadWholeFile(path: string, extension: string): Promise<LoadEvent> {
  const handler = WHOLE_FILE_FORMATS[extension];
  if (!handler) {
    const what = extension ? `unsupported file type ${extension}` : "no file extension";
    return { kind: "skipped", path, reason: `${what} (supported: ${SUPPORTED_EXTENSIONS.join(", ")})` };
  }
  try {
    const { text, title, metadata } = await handler.load(path);
    if (!hasText(text)) return { kind: "skipped", ...emptySource(path, fileDocumentId(path)) };
    const document = fileDocument(path, handler.format, text, title);
    return { kind: "document", document: { ...document, metadata: { ...document.metadata, ...metadata } } };
  } catch (error) {
    // The file is still there: naming its document keeps an indexed version from being taken for gone.
    return { kind: "skipped", path, reason: skipReason(error), docId: fileDocumentId(path) };
  }
}

async function* loadJsonlOrExplain(path: string, seenIds: Map<string, string>): AsyncGenerator<LoadEvent> {
  try {
    yield* loadJsonl(path, seenIds);
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
