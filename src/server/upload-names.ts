import { extname, isAbsolute, join, resolve, sep } from "node:path";
import { SUPPORTED_EXTENSIONS } from "../ingest/loaders.js";
import { badRequest } from "./errors.js";

/**
 * The path an uploaded file is stored at. The name must be a plain file name: no folder part, no
 * `..`, not absolute, no NUL or control character, no space at either end, and of a type the CLI
 * reads. Refused, not cleaned up: a client sending `../x` has a bug or an intent that the caller
 * should hear about.
 */
export function uploadPath(folder: string, name: string): string {
  if (!name) throw badRequest("An uploaded file has no name", "bad_file_name");
  if (name.length > 255)
    throw badRequest("An uploaded file name is longer than 255 characters", "bad_file_name");
  if (/[\p{Cc}]/u.test(name))
    throw badRequest(`File name ${JSON.stringify(name)} holds a NUL or control character`, "bad_file_name");
  if (isAbsolute(name) || /^[a-zA-Z]:/.test(name))
    throw badRequest(`File name ${JSON.stringify(name)} is an absolute path`, "bad_file_name");
  if (name.includes("/") || name.includes("\\") || name === "." || name === "..")
    throw badRequest(
      `File name ${JSON.stringify(name)} is not a plain file name (no folders, no ..)`,
      "bad_file_name",
    );
  // "  .md" (or ".md", as a parser may trim it) is an extension with no name, not an unknown type.
  const dot = name.lastIndexOf(".");
  const ending = dot >= 0 ? name.slice(dot).toLowerCase() : "";
  if (
    name.trim() === "" ||
    (name.slice(0, Math.max(dot, 0)).trim() === "" && SUPPORTED_EXTENSIONS.includes(ending))
  )
    throw badRequest(
      `File name ${JSON.stringify(name)} is blank${ending ? ` before its extension ${ending}` : ""}: give the file a name`,
      "bad_file_name",
    );
  // Lists and tables show " x.txt" as "x.txt": a name kept with its space would look renamed.
  if (name.trim() !== name)
    throw badRequest(
      `File name ${JSON.stringify(name)} begins or ends with a space; rename the file without it`,
      "bad_file_name",
    );
  const extension = extname(name).toLowerCase();
  if (!SUPPORTED_EXTENSIONS.includes(extension))
    throw badRequest(
      `File ${JSON.stringify(name)} is not of a supported type (${SUPPORTED_EXTENSIONS.join(" ")})`,
      "unsupported_file_type",
    );
  const path = resolve(folder, name);
  // Belt and braces: whatever the checks above missed must still land in the folder.
  if (!path.startsWith(resolve(folder) + sep))
    throw badRequest(`File name ${JSON.stringify(name)} escapes the upload folder`, "bad_file_name");
  return join(resolve(folder), name);
}
