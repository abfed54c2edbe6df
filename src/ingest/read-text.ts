import { readFile, stat } from "node:fs/promises";
import { UnreadableSourceError } from "./source-types.js";

/**
 * Formats read into memory whole (text, markdown, html, pdf, docx) are capped so one huge file
 * cannot exhaust the process; .jsonl is streamed and has no cap.
 */
export const MAX_WHOLE_FILE_BYTES = 200 * 1024 * 1024;

export async function readWholeFile(path: string): Promise<Buffer> {
  const { size } = await stat(path);
  if (size > MAX_WHOLE_FILE_BYTES) {
    const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;
    throw new UnreadableSourceError(
      `file is too large to load whole (${mb(size)}, limit ${mb(MAX_WHOLE_FILE_BYTES)}): split it, ` +
        "or convert it to .jsonl (one passage a line, streamed)",
    );
  }
  return readFile(path);
}

/** Reads a text file as UTF-8 (UTF-16 with a byte-order mark is accepted too), rejecting binaries. */
export async function readTextFile(path: string): Promise<string> {
  return decodeText(await readWholeFile(path));
}

export function decodeText(bytes: Uint8Array): string {
  const utf16 = utf16Encoding(bytes);
  if (utf16) return normaliseNewlines(new TextDecoder(utf16).decode(bytes));
  if (bytes.includes(0)) {
    throw new UnreadableSourceError("binary content (NUL bytes): not a text file");
  }
  try {
    return normaliseNewlines(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new UnreadableSourceError(
      "not valid UTF-8 text: convert it to UTF-8 first (e.g. `iconv -f GBK -t UTF-8 in.txt > out.txt`)",
    );
  }
}

function utf16Encoding(bytes: Uint8Array): "utf-16le" | "utf-16be" | null {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return null;
}

/** Windows line endings would otherwise change content hashes and offsets between platforms. */
export function normaliseNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}
