import { accessSync, constants } from "node:fs";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { UsageError } from "./usage-error.js";

/**
 * Reads a file named by an option such as --batch ("-" reads standard input). A path that cannot
 * be read is a UsageError in one line saying what to fix, not Node's ENOENT text.
 */
export async function readInputFile(path: string, option: string, format: string): Promise<string> {
  if (path === "-") return withoutByteOrderMark(await readStdin());
  try {
    return withoutByteOrderMark(await readFile(path, "utf8"));
  } catch (error) {
    throw new UsageError(describeReadProblem(error, path, option, format));
  }
}

/** A file saved with a UTF-8 byte order mark (Windows editors) would fail its first JSON line. */
function withoutByteOrderMark(text: string): string {
  return text.replace(/^\uFEFF/, "");
}

/**
 * Checks that a path named by an option (a file or a folder, e.g. --corpus) can be read, before
 * any work starts; the same one-line messages as readInputFile.
 */
export function checkInputPath(path: string, option: string, format: string): void {
  try {
    accessSync(path, constants.R_OK);
  } catch (error) {
    throw new UsageError(describeReadProblem(error, path, option, format));
  }
}

function describeReadProblem(error: unknown, path: string, option: string, format: string): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case "ENOENT":
      return `${option} file not found: ${path} (looked for ${resolve(path)}). Check the path; the file holds ${format}.`;
    case "EISDIR":
      return `${option} ${path} is a folder; give a file holding ${format}.`;
    case "EACCES":
    case "EPERM":
      return `${option} file ${path} cannot be read (permission denied); check its permissions.`;
    default:
      return `${option} file ${path} cannot be read: ${(error as Error).message}`;
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
}
