import { isAbsolute, resolve, sep, win32 } from "node:path";
import type { Metadata } from "../types.js";
import { uploadFolderOf } from "./upload-folder.js";

/** A character a file or folder name cannot end a path with: a separator, a space, quotes, brackets. */
const NAME = String.raw`[^\s/\\:'"()<>]`;
/**
 * A POSIX absolute path of two or more parts (an API route such as /api/v1/jobs is left alone). A
 * folder's name may hold spaces (`/Users/John Smith/notes/a.md`): a part followed by a separator
 * is one name from its first to its last non-space character.
 */
const POSIX_PATH = new RegExp(
  String.raw`(?<![\w.:/\\])\/(?!api\/)(?:${NAME}(?:[^/\\:'"()<>\n]*${NAME})?\/)+(${NAME}*)`,
  "g",
);
const WINDOWS_PATH = new RegExp(
  String.raw`(?<![\w])[A-Za-z]:\\(?:${NAME}(?:[^/\\:'"()<>\n]*${NAME})?\\)*(${NAME}*)`,
  "g",
);

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * `folder` where it stands for itself, not as the start of a longer name (`/data/ws` in
 * `/data/ws2/a.md`): followed by a separator, the end, or what ends a path in a sentence.
 */
function folderPattern(folder: string, withSeparator: boolean): RegExp {
  const after = withSeparator ? escaped(sep) : String.raw`(?=$|[\s/\\:'"()<>,;!?]|\.(?:\s|$))`;
  return new RegExp(String.raw`(?<![\w.\-])${escaped(folder)}${after}`, "g");
}

/**
 * `text` as an API client may read it: an uploaded file by its name, a file in the workspace by
 * its path in there, any other absolute path by its last part. The server's folders are its
 * operator's business (they stay in its log).
 */
export function hideServerPaths(text: string, workspace: string): string {
  const folder = resolve(workspace);
  return text
    .replace(folderPattern(uploadFolderOf(workspace), true), "")
    .replace(folderPattern(folder, true), "")
    .replace(folderPattern(folder, false), "the workspace")
    .replace(POSIX_PATH, (_path, last: string) => last || "…")
    .replace(WINDOWS_PATH, (_path, last: string) => last || "…");
}

/**
 * A document's metadata as an API client may read it: where the file loaders recorded the file it
 * came from (`source`, an absolute path on the server; or any value that is the document's own
 * path), that file by its upload name, its path in the workspace, or its last part, as
 * hideServerPaths shows it. Other values are the indexer's caller's own and are left as they are.
 */
export function shownMetadata(metadata: Metadata, path: string | null, workspace: string): Metadata {
  const serverPath = (key: string, value: string) =>
    value === path || (key === "source" && (isAbsolute(value) || win32.isAbsolute(value)));
  return Object.fromEntries(
    Object.entries(metadata).map(([key, value]) => [
      key,
      typeof value === "string" && serverPath(key, value) ? hideServerPaths(value, workspace) : value,
    ]),
  );
}
