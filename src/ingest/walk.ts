import type { Dirent } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { SkippedSource } from "./source-types.js";

/** Folders never worth indexing: hidden ones (.git, .venv, ...) and installed packages. */
function isIgnoredName(name: string): boolean {
  return name.startsWith(".") || name === "node_modules";
}

/**
 * Expands files and folders into absolute file paths: folders recursively, entries sorted so every
 * run sees the same order, each file once even when named twice or reached through a symlink.
 * Inside a folder, a link to a file is read but a link to a folder is not followed (as find and
 * git do): `ln -s .. loop` would otherwise index the parent, the workspace being written included.
 */
export async function collectFiles(paths: string[]): Promise<{ files: string[]; skipped: SkippedSource[] }> {
  const files: string[] = [];
  const skipped: SkippedSource[] = [];
  const seen = new Set<string>();
  for (const given of paths) {
    const path = resolve(given);
    const info = await stat(path).catch(() => undefined);
    if (!info) skipped.push({ path, reason: missingReason(given) });
    else if (info.isDirectory()) await walkFolder(path, files, skipped, seen);
    else await addFile(path, files, seen);
  }
  return { files, skipped };
}

/**
 * A path that does not exist. One with spaces or line breaks may be text handed to `index` as
 * LightRAG's `insert(text)` takes it: the reason says how to index text instead.
 */
function missingReason(given: string): string {
  const maybeText = /\s/.test(given.trim());
  return maybeText
    ? "no such file or folder (to index text itself rather than a file, pass documents { id, title, text })"
    : "no such file or folder";
}

async function addFile(path: string, files: string[], seen: Set<string>): Promise<void> {
  const real = await realpath(path);
  if (seen.has(real)) return;
  seen.add(real);
  files.push(path);
}

async function walkFolder(folder: string, files: string[], skipped: SkippedSource[], seen: Set<string>) {
  const real = await realpath(folder);
  // A symlink cycle would otherwise recurse forever.
  if (seen.has(real)) return;
  seen.add(real);
  let entries: Dirent[];
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    skipped.push({ path: folder, reason: `cannot read folder: ${(error as Error).message}` });
    return;
  }
  const names = entries
    .map((entry) => entry.name)
    .filter((name) => !isIgnoredName(name))
    .sort();
  const linked = new Set(entries.filter((entry) => entry.isSymbolicLink()).map((entry) => entry.name));
  for (const name of names) {
    const path = join(folder, name);
    const info = await stat(path).catch(() => undefined);
    if (!info) skipped.push({ path, reason: "broken link or unreadable entry" });
    else if (info.isDirectory() && linked.has(name))
      skipped.push({ path, reason: "a link to a folder, not followed (name the folder itself to index it)" });
    else if (info.isDirectory()) await walkFolder(path, files, skipped, seen);
    else if (info.isFile()) await addFile(path, files, seen);
  }
}
