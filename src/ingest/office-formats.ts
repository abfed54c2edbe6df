import { createRequire } from "node:module";
import { normaliseNewlines, readWholeFile } from "./read-text.js";
import { type ParsedFormat, unparsableReason } from "./skip-reason.js";
import { UnreadableSourceError } from "./source-types.js";

/** The parts of pdf.js 1.10 (bundled with pdf-parse v1) that text extraction uses. */
interface PdfJs {
  getDocument(source: { data: Uint8Array }): { promise: Promise<PdfDocument> };
}
interface PdfDocument {
  numPages: number;
  getPage(page: number): Promise<{ getTextContent(): Promise<{ items: PdfTextItem[] }> }>;
  destroy(): Promise<void>;
}
interface PdfTextItem {
  str?: string;
  transform: number[];
}

/**
 * pdf-parse's own entry runs a self-test when imported as an ES module, so its bundled pdf.js build
 * is loaded directly (as LangChain's PDFLoader did); it is CommonJS, hence `require`.
 */
const PDF_JS = "pdf-parse/lib/pdf.js/v1.10.100/build/pdf.js";

/** PDF text, page by page: a new line wherever the baseline moves, pages joined by blank lines. */
export async function loadPdf(path: string): Promise<string> {
  const data = new Uint8Array(await readWholeFile(path));
  const pages = await withConsoleLogOnStderr(() => parseOrExplain("PDF", () => pdfPages(data)));
  return joinPages(pages);
}

async function pdfPages(data: Uint8Array): Promise<string[]> {
  const pdfjs = createRequire(import.meta.url)(PDF_JS) as PdfJs;
  const pdf = await pdfjs.getDocument({ data }).promise;
  try {
    const pages: string[] = [];
    for (let n = 1; n <= pdf.numPages; n += 1) {
      const { items } = await (await pdf.getPage(n)).getTextContent();
      if (items.length > 0) pages.push(pageText(items));
    }
    return pages;
  } finally {
    await pdf.destroy();
  }
}

/** Text items in order; an item on another baseline than the one before starts a new line. */
function pageText(items: PdfTextItem[]): string {
  let lastY: number | undefined;
  let text = "";
  for (const item of items) {
    if (item.str === undefined) continue;
    const y = item.transform[5];
    text += lastY === undefined || lastY === y ? item.str : `\n${item.str}`;
    lastY = y;
  }
  return text;
}

/** DOCX text through mammoth's raw-text extraction. */
export async function loadDocx(path: string): Promise<string> {
  const buffer = await readWholeFile(path);
  const text = await parseOrExplain("DOCX", async () => {
    const { default: mammoth } = await import("mammoth");
    return (await mammoth.extractRawText({ buffer })).value;
  });
  return joinPages(text ? [text] : []);
}

function joinPages(pages: string[]): string {
  return normaliseNewlines(pages.join("\n\n")).trim();
}

async function parseOrExplain<T>(format: ParsedFormat, parse: () => Promise<T>): Promise<T> {
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
