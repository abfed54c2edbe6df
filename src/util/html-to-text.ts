import { createRequire } from "node:module";

type HtmlToText = typeof import("html-to-text");

let loaded: HtmlToText | undefined;

/**
 * html-to-text's `convert`, loaded by the first HTML converted (its parser stack is slow to load
 * and most commands never see HTML). Its CommonJS build keeps the call synchronous.
 */
export function convertHtml(html: string, options?: Parameters<HtmlToText["convert"]>[1]): string {
  loaded ??= createRequire(import.meta.url)("html-to-text") as HtmlToText;
  return loaded.convert(html, options);
}
