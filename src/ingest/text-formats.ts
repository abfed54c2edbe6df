import type { Metadata } from "../types.js";
import { convertHtml, WORDS_AS_WRITTEN } from "../util/html-to-text.js";
import { readTextFile } from "./read-text.js";

export interface LoadedText {
  text: string;
  /** Title found in the content, when the format has one. */
  title: string | null;
  /** What the format knows beyond the text, e.g. where a PDF's pages start. */
  metadata?: Metadata;
}

export async function loadPlainText(path: string): Promise<LoadedText> {
  const text = await readTextFile(path);
  return { text, title: plainTextTitle(text) };
}

/** Longest first line read as a title: a heading, not a sentence that happens to stand alone. */
const MAX_TITLE_CHARS = 100;
const MAX_TITLE_WORDS = 14;

/**
 * The first line of a plain-text file when it reads as a title: short, not ending like a sentence
 * or a clause (".", "。", ":", ","...), and followed by a body. A one-line file has no title line.
 */
export function plainTextTitle(text: string): string | null {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const at = lines.findIndex((line) => line.trim() !== "");
  const first = lines[at]?.trim() ?? "";
  if (!readsAsTitle(first)) return null;
  const hasBody = lines.slice(at + 1).some((line) => line.trim() !== "");
  return hasBody ? first : null;
}

/** Short, and not ending like a sentence or a clause (".", "。", ":", ","...). */
export function readsAsTitle(line: string): boolean {
  if (!line || line.length > MAX_TITLE_CHARS) return false;
  if (line.split(/\s+/).length > MAX_TITLE_WORDS) return false;
  return !/[.。!！?？:：;；,，、…]$/u.test(line);
}

export async function loadMarkdown(path: string): Promise<LoadedText> {
  const text = await readTextFile(path);
  return { text, title: firstMarkdownHeading(text) };
}

/** The first ATX heading (`# Title`) outside fenced code blocks. */
export function firstMarkdownHeading(markdown: string): string | null {
  let inFence = false;
  for (const line of markdown.split("\n")) {
    if (/^\s{0,3}(```|~~~)/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (heading?.[1]) return heading[1];
  }
  return null;
}

export async function loadHtml(path: string): Promise<LoadedText> {
  const html = await readTextFile(path);
  return { text: htmlToText(html), title: htmlTitle(html) };
}

export function htmlToText(html: string): string {
  return convertHtml(html, {
    wordwrap: false,
    selectors: [
      ...WORDS_AS_WRITTEN,
      { selector: "script", format: "skip" },
      { selector: "style", format: "skip" },
    ],
  }).trim();
}

function htmlTitle(html: string): string | null {
  const match = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html) ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(html);
  const title = match?.[1] ? convertHtml(match[1], { wordwrap: false }).trim() : "";
  return title || null;
}
