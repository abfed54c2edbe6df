import { stat } from "node:fs/promises";
import { sep } from "node:path";
import type { SkippedSource } from "./source-types.js";

/**
 * Whether the file of a document that was not loaded this run is still there, only skipped: the
 * file itself, one of its .jsonl lines, or a folder above it could not be read. Such a document is
 * kept; only a file that no longer exists, or a .jsonl read in full without it, lets it go.
 */
export async function stillPresent(path: string, skipped: SkippedSource[]): Promise<boolean> {
  return skipped.some((skip) => covers(skip, path)) && (await exists(path));
}

function covers(skip: SkippedSource, path: string): boolean {
  if (skip.path === path || path.startsWith(skip.path + sep)) return true;
  // An empty line names its own document and a duplicate's id was loaded elsewhere: only a line
  // that could not be read may be the missing document.
  return skip.unreadable === true && isLineOf(skip.path, path);
}

function isLineOf(skipped: string, path: string): boolean {
  return skipped.startsWith(`${path}:`) && /^\d+$/.test(skipped.slice(path.length + 1));
}

/** Any answer but "no such file" means the file is there (unreadable, perhaps). */
async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== "ENOENT" && code !== "ENOTDIR";
  }
}
