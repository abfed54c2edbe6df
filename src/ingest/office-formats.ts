import { DocxLoader } from "@langchain/community/document_loaders/fs/docx";
import { PDFLoader } from "@langchain/community/document_loaders/fs/pdf";
import type { Document } from "@langchain/core/documents";
import { normaliseNewlines, readWholeFile } from "./read-text.js";
import { type ParsedFormat, unparsableReason } from "./skip-reason.js";
import { UnreadableSourceError } from "./source-types.js";

/** PDF text through LangChain's PDFLoader (pdf-parse v1 / pdf.js), pages joined by blank lines. */
export async function loadPdf(path: string): Promise<string> {
  const blob = await fileBlob(path);
  const loader = new PDFLoader(blob, { splitPages: false });
  return joinPages(await withConsoleLogOnStderr(() => parseOrExplain("PDF", () => loader.load())));
}

/** DOCX text through LangChain's DocxLoader (mammoth). */
export async function loadDocx(path: string): Promise<string> {
  const blob = await fileBlob(path);
  const loader = new DocxLoader(blob);
  return joinPages(await parseOrExplain("DOCX", () => loader.load()));
}

// The size cap applies before a parser ever sees the bytes.
async function fileBlob(path: string): Promise<Blob> {
  return new Blob([await readWholeFile(path)]);
}

function joinPages(documents: Document[]): string {
  return normaliseNewlines(documents.map((doc) => doc.pageContent).join("\n\n")).trim();
}

async function parseOrExplain(format: ParsedFormat, parse: () => Promise<Document[]>): Promise<Document[]> {
  try {
    return await parse();
  } catch (error) {
    throw new UnreadableSourceError(unparsableReason(format, error));
  }
}

let redirected = 0;
let originalLog: typeof console.log | undefined;

/**
 * pdf.js (in pdf-parse v1) prints its warnings with console.log, and its in-process worker cannot
 * be told to stop; on stdout they would corrupt `kgrag index --json`, so they go to stderr.
 */
async function withConsoleLogOnStderr<T>(work: () => Promise<T>): Promise<T> {
  if (redirected === 0) {
    originalLog = console.log;
    console.log = (...args: unknown[]) => console.error(...args);
  }
  redirected += 1;
  try {
    return await work();
  } finally {
    redirected -= 1;
    if (redirected === 0 && originalLog) console.log = originalLog;
  }
}
