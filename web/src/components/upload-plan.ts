/** Which chosen files an upload sends, which it skips and why (a plain module: unit tests read it). */

/** What the server takes (GET /api/v1/uploads). */
export interface UploadRules {
  extensions: string[];
  maxFileBytes: number;
  maxFiles: number;
  /** Names uploaded before, with the documents they made. */
  files: { name: string; documents: { id: string; title: string }[] }[];
}

export interface SkippedFile {
  name: string;
  reason: string;
}

export interface UploadPlan<F> {
  /** The files to send, in the order chosen. */
  send: F[];
  skipped: SkippedFile[];
  /** Files to send whose name was uploaded before: sending them replaces those documents. */
  replacing: { file: F; titles: string[] }[];
}

/** The extension as the server reads it (Node's extname): none for ".env" or "README". */
function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot).toLowerCase() : "";
}

function megabytes(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}

/**
 * The server refuses a whole upload for one file it does not take: those files are left out here
 * with the reason, so that the others still go.
 */
export function planUpload<F extends { name: string; size: number }>(
  files: F[],
  rules: UploadRules,
): UploadPlan<F> {
  const uploaded = new Map(rules.files.map((f) => [f.name, f.documents]));
  const plan: UploadPlan<F> = { send: [], skipped: [], replacing: [] };
  const names = new Set<string>();
  for (const file of files) {
    const reason = skipReason(file, rules, names);
    if (reason) {
      plan.skipped.push({ name: file.name, reason });
      continue;
    }
    names.add(file.name);
    plan.send.push(file);
    const before = uploaded.get(file.name);
    if (before) plan.replacing.push({ file, titles: before.map((d) => d.title || d.id) });
  }
  return plan;
}

/** Why the server would refuse the file (and with it the whole upload); undefined when it takes it. */
function skipReason(
  file: { name: string; size: number },
  rules: UploadRules,
  namesSoFar: ReadonlySet<string>,
): string | undefined {
  // The server's name rules (src/server/upload-names.ts): one name it refuses fails the whole upload.
  if (file.name.length > 255) return "the server takes names of at most 255 characters";
  if (/\p{Cc}/u.test(file.name)) return "the name holds a control character";
  if (file.name.includes("\\") || file.name.includes("/")) return "the name holds a folder separator";
  if (file.name.trim() !== file.name) return "the name begins or ends with a space";
  const extension = extensionOf(file.name);
  if (!rules.extensions.includes(extension)) {
    const what = extension ? `${extension} files are` : "a file without an extension is";
    return `${what} not indexed (supported: ${rules.extensions.join(" ")})`;
  }
  if (file.size > rules.maxFileBytes)
    return `larger than the server's limit of ${megabytes(rules.maxFileBytes)} per file (KGRAG_UPLOAD_MAX_MB)`;
  // The second would overwrite the first on the server.
  if (namesSoFar.has(file.name)) return "another file of this name is in the same upload";
  return undefined;
}

/** The confirm's question before files replace documents uploaded under the same names. */
export function replaceQuestion(replacing: { file: { name: string }; titles: string[] }[]): string {
  const lines = replacing.map(({ file, titles }) => {
    const made = titles.join(", ");
    return made && made !== file.name ? `• ${file.name} (${made})` : `• ${file.name}`;
  });
  const one = replacing.length === 1;
  return [
    `${one ? "This file was" : "These files were"} uploaded before; uploading again replaces the documents made from ${one ? "it" : "them"}:`,
    ...lines,
    "",
    "OK replaces them; Cancel uploads only the other files.",
  ].join("\n");
}

/** `items` cut into runs of at most `size` (the server's files per upload). */
export function inBatches<T>(items: T[], size: number): T[][] {
  const batches: T[][] = [];
  const step = Math.max(1, size);
  for (let i = 0; i < items.length; i += step) batches.push(items.slice(i, i + step));
  return batches;
}
