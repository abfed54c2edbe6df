import { resolve, sep } from "node:path";
import { uploadFolderOf } from "./upload-folder.js";

/** A POSIX absolute path of two or more parts (an API route such as /api/v1/jobs is left alone). */
const POSIX_PATH = /(?<![\w.:/\\])\/(?!api\/)(?:[^\s/\\:'"()<>]+\/)+([^\s/\\:'"()<>]*)/g;
const WINDOWS_PATH = /(?<![\w])[A-Za-z]:\\(?:[^\s\\:'"()<>]+\\)*([^\s\\:'"()<>]*)/g;

/**
 * `text` as an API client may read it: an uploaded file by its name, a file in the workspace by
 * its path in there, any other absolute path by its last part. The server's folders are its
 * operator's business (they stay in its log).
 */
export function hideServerPaths(text: string, workspace: string): string {
  const uploads = `${uploadFolderOf(workspace)}${sep}`;
  const folder = resolve(workspace);
  return text
    .replaceAll(uploads, "")
    .replaceAll(`${folder}${sep}`, "")
    .replaceAll(folder, "the workspace")
    .replace(POSIX_PATH, (_path, last: string) => last || "…")
    .replace(WINDOWS_PATH, (_path, last: string) => last || "…");
}
