import { readsAsTitle } from "./text-formats.js";

/** A run of text on a PDF page as pdf.js reads it: `hasEOL` ends its line. */
export interface PdfTextItem {
  str: string;
  fontSize: number;
  hasEOL: boolean;
}

/** A page's text as unpdf's extractText gives it: the items in order, each line ended by a line break. */
export function pdfPageText(items: PdfTextItem[]): string {
  return items.map((item) => item.str + (item.hasEOL ? "\n" : "")).join("");
}

/**
 * The title of a PDF: the lines that open its first page with text when they are set in larger
 * type than the page's body text and read as a title (short, not ending like a sentence), with
 * text after them. A PDF's line breaks are layout, not writing, so the first line alone is no
 * sign of a heading: a wrapped sentence starts many a page ("Tidewell Robotics (Carrow Bay)").
 */
export function pdfHeading(pages: PdfTextItem[][]): string | null {
  const page = pages.find((items) => items.some((item) => item.str.trim() !== ""));
  if (!page) return null;
  const lines = textLines(page);
  const body = bodySize(lines);
  const heading: string[] = [];
  for (const line of lines) {
    if (line.size <= body) break;
    heading.push(line.text);
  }
  const title = heading.join(" ").replace(/\s+/g, " ").trim();
  const hasBody = heading.length < lines.length;
  return title && hasBody && readsAsTitle(title) ? title : null;
}

interface TextLine {
  text: string;
  /** The largest type on the line, in points to a tenth (pdf.js sizes carry float noise). */
  size: number;
}

function textLines(items: PdfTextItem[]): TextLine[] {
  const lines: TextLine[] = [];
  let current: PdfTextItem[] = [];
  const close = () => {
    const shown = current.filter((item) => item.str.trim() !== "");
    if (shown.length > 0) {
      lines.push({
        text: shown.map((item) => item.str).join(""),
        size: Math.max(...shown.map((item) => pointSize(item.fontSize))),
      });
    }
    current = [];
  };
  for (const item of items) {
    current.push(item);
    if (item.hasEOL) close();
  }
  close();
  return lines;
}

/** The type size that sets the most characters on the page. */
function bodySize(lines: TextLine[]): number {
  const characters = new Map<number, number>();
  for (const line of lines) characters.set(line.size, (characters.get(line.size) ?? 0) + line.text.length);
  let body = 0;
  let most = -1;
  for (const [size, count] of characters) {
    if (count > most) [body, most] = [size, count];
  }
  return body;
}

const pointSize = (fontSize: number) => Math.round(fontSize * 10) / 10;
