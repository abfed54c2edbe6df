import { createRequire } from "node:module";

type HtmlToText = typeof import("html-to-text");
type ConvertOptions = NonNullable<Parameters<HtmlToText["convert"]>[1]>;
type Selector = NonNullable<ConvertOptions["selectors"]>[number];

let loaded: HtmlToText | undefined;

/**
 * html-to-text's `convert`, loaded by the first HTML converted (its parser stack is slow to load
 * and most commands never see HTML). Its CommonJS build keeps the call synchronous.
 */
export function convertHtml(html: string, options?: ConvertOptions): string {
  loaded ??= createRequire(import.meta.url)("html-to-text") as HtmlToText;
  return loaded.convert(html, options);
}

/**
 * HTML's words as written: html-to-text upper-cases headings and header cells by default, and
 * runs a layout table's cells together ("NameFounded"); here headings keep their case, a table
 * keeps one line per row with its cells apart (never wrapped), link targets and images go.
 */
export const WORDS_AS_WRITTEN: Selector[] = [
  ...["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({ selector, options: { uppercase: false } })),
  {
    selector: "table",
    format: "dataTable",
    options: { uppercaseHeaderCells: false, maxColumnWidth: Number.MAX_SAFE_INTEGER },
  },
  { selector: "a", options: { ignoreHref: true } },
  { selector: "img", format: "skip" },
];
