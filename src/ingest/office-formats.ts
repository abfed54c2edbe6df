import { type PdfTextItem, pdfHeading, pdfPageText } from "./pdf-heading.js";
import { normaliseNewlines, readWholeFile } from "./read-text.js";
import { type ParsedFormat, unparsableReason } from "./skip-reason.js";
import { UnreadableSourceError } from "./source-types.js";

/** Where each page starts in a PDF document's text, as kept in its metadata (see pdf-pages.ts). */
export interface PdfText {
  text: string;
  pageStarts: number[];
}

/**
 * PDF text through unpdf (a maintained, dependency-free build of Mozilla's pdf.js), page by page,
 * pages joined by blank lines; `pageStarts[i]` is where page i + 1 starts in the text, so every
 * chunk can say which page it comes from. An empty page starts where the next one does. The title
 * is the heading that opens the document, if any (see pdfHeading).
 */
export async function loadPdf(path: string): Promise<PdfText & { title: string | null }> {
  const data = new Uint8Array(await readWholeFile(path));
  const pages = await withConsoleLogOnStderr(() => parseOrExplain("PDF", () => pdfPages(data)));
  return { ...joinPdfPages(pages.map(pdfPageText)), title: pdfHeading(pages) };
}

/** pdf.js's VerbosityLevel.ERRORS. */
const PDF_ERRORS_ONLY = 0;

/** Each page's text items, with the type size that tells a heading from the body text. */
async function pdfPages(data: Uint8Array): Promise<PdfTextItem[][]> {
  const { extractTextItems, getDocumentProxy } = await import("unpdf");
  // Errors only: pdf.js warns on stdout about what it repairs ("Indexing all PDF objects" for a
  // broken cross-reference table), noise between kgrag's own messages once the text is read.
  const pdf = await getDocumentProxy(data, { verbosity: PDF_ERRORS_ONLY });
  try {
    return (await extractTextItems(pdf)).items;
  } finally {
    await pdf.destroy();
  }
}

export function joinPdfPages(pages: string[]): PdfText {
  let text = "";
  const pageStarts: number[] = [];
  // Pages read since the last one with text: they all start where the next text starts.
  let unplaced = 0;
  for (const page of pages) {
    const clean = normaliseNewlines(page).trim();
    unplaced += 1;
    if (!clean) continue;
    if (text) text += "\n\n";
    for (; unplaced > 0; unplaced -= 1) pageStarts.push(text.length);
    text += clean;
  }
  for (; unplaced > 0; unplaced -= 1) pageStarts.push(text.length);
  return { text, pageStarts };
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
 * pdf.js prints its warnings with console.log; on stdout they would corrupt `kgrag index --json`,
 * so they go to stderr.
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
