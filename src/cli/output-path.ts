import { readdirSync, type Stats, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { UsageError } from "./usage-error.js";

/** What an --out path names: one file, or a folder that receives several files. */
export type OutKind = "file" | "folder";

/**
 * Refuses an --out path that cannot be written, or whose writing would silently replace what is
 * there: an existing file (or a non-empty folder) needs `force`. Checked before any work starts.
 */
export function checkOutPath(out: string, kind: OutKind, force: boolean): void {
  const target = resolve(out);
  const parent = dirname(target);
  if (!statOf(parent)?.isDirectory()) {
    throw new UsageError(
      `--out ${out}: the folder ${parent} does not exist. Create it first (mkdir -p ${parent}) or choose another path.`,
    );
  }
  const existing = statOf(target);
  if (!existing) return;
  if (kind === "file" && existing.isDirectory()) {
    throw new UsageError(`--out ${out} is a folder; give the path of the file to write.`);
  }
  if (kind === "folder" && !existing.isDirectory()) {
    throw new UsageError(`--out ${out} is a file; this format writes several files, so give a folder.`);
  }
  if (force) return;
  if (kind === "file") {
    throw new UsageError(
      `--out ${out} already exists; pass --force to overwrite it, or choose another path.`,
    );
  }
  if (readdirSync(target).length > 0) {
    throw new UsageError(
      `--out ${out} is a folder that is not empty; pass --force to write into it (files of the same ` +
        "name are replaced), or choose a new or empty folder.",
    );
  }
}

/** undefined when nothing is there (also when a parent is a file: ENOTDIR). */
function statOf(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
