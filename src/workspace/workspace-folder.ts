import { type Stats, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { ConfigError } from "../config-error.js";

/** The file that stands where folder `dir` would be: `dir` itself or a folder above it; undefined when none does. */
export function fileInTheWay(dir: string): string | undefined {
  for (let path = resolve(dir); ; path = dirname(path)) {
    const found = statIfThere(path);
    if (found) return found.isDirectory() ? undefined : path;
    if (dirname(path) === path) return undefined;
  }
}

/** What is at `path`, or undefined when nothing is (also below a file: ENOTDIR). */
function statIfThere(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOTDIR") return undefined;
    throw error;
  }
}

/**
 * A workspace is a folder, made when missing: a file in its place would fail deep in the store
 * with a bare `EEXIST` or `ENOTDIR` from mkdir. `named` is how the caller gave the path.
 */
export function refuseFileAsWorkspace(
  dir: string,
  named = "The workspace path",
  advice = "a workspace is a folder (one that is missing is created)",
): void {
  const file = fileInTheWay(dir);
  if (file === undefined) return;
  const what = file === resolve(dir) ? "is a file" : `is inside ${file}, which is a file`;
  throw new ConfigError(`${named} ${dir} ${what}; ${advice}`);
}
