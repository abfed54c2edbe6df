import { existsSync } from "node:fs";
import { resolve, sep } from "node:path";
import type { Kgrag } from "../../kgrag.js";
import { checkScope } from "../../query/graph/scope.js";
import type { DocumentRecord } from "../../types.js";
import { counted } from "../../util/counted.js";
import type { DeleteOptions } from "../commands/delete.js";
import type { OpenKgrag } from "../open.js";
import { formatTable, truncateToWidth } from "../output.js";
import { printJson } from "../print-json.js";
import { parseFilters } from "../query-flags.js";
import { UsageError } from "../usage-error.js";

/**
 * `kgrag delete`: the documents named by id, by the path they were read from, or by metadata;
 * every selector is checked before anything is deleted, then the graph is settled once.
 */
export async function deleteAction(open: OpenKgrag, docIds: string[], opts: DeleteOptions): Promise<void> {
  const paths = opts.path ?? [];
  const filters = opts.filter ? parseFilters(opts.filter) : undefined;
  if (docIds.length === 0 && paths.length === 0 && !filters) {
    throw new UsageError(
      "kgrag delete needs document ids, --path or --filter (`kgrag status` lists documents).",
    );
  }
  const kgrag = await open(opts);
  try {
    const selected = await selectDocuments(kgrag, docIds, paths, filters);
    if (opts.dryRun) return printSelection(selected, opts);
    const result = await kgrag.deleteDocuments(selected.map((d) => d.id));
    warnOfFilesStillThere(selected);
    const counts = await kgrag.services.store.counts();
    if (opts.json) printJson({ ...result, counts });
    else {
      process.stdout.write(`Deleted ${result.deleted.length} document(s).\n`);
      process.stdout.write(
        `Workspace: ${counted(counts.documents, "document")}, ${counted(counts.entities, "entity", "entities")}.\n`,
      );
    }
  } finally {
    await kgrag.close();
  }
}

/**
 * The ids given and the documents read from the paths given; `filters` narrows those (or, alone,
 * selects among all documents). A mistyped id or path, or a filter no document has, is bad input.
 */
async function selectDocuments(
  kgrag: Kgrag,
  docIds: string[],
  paths: string[],
  filters: Record<string, string> | undefined,
): Promise<DocumentRecord[]> {
  const documents = await kgrag.services.store.listDocuments();
  refuseUnknownIds(documents, docIds);
  const named = new Set(docIds);
  for (const path of paths) {
    const found = documentsReadFrom(documents, path);
    if (found.length === 0) {
      throw new UsageError(
        `No document in this workspace was read from ${resolve(path)}; nothing was deleted. ` +
          "`kgrag status --json` lists each document's path.",
      );
    }
    for (const d of found) named.add(d.id);
  }
  // In the order given: ids first, then what each path selects.
  const byId = new Map(documents.map((d) => [d.id, d]));
  const candidates = named.size > 0 ? [...named].flatMap((id) => byId.get(id) ?? []) : documents;
  if (!filters) return candidates;
  // The same checks as a query's --filter: a key or value that no document has is named.
  await checkScope(kgrag.services.store, { metadata: filters });
  const selected = candidates.filter((d) =>
    Object.entries(filters).every(
      ([key, value]) => Object.hasOwn(d.metadata, key) && String(d.metadata[key]) === value,
    ),
  );
  if (selected.length === 0) {
    throw new UsageError("No document given matches every --filter; nothing was deleted.");
  }
  return selected;
}

/** A mistyped id is bad input: all ids are checked before anything is deleted. */
function refuseUnknownIds(documents: DocumentRecord[], docIds: string[]): void {
  const known = new Set(documents.map((d) => d.id));
  const unknown = [...new Set(docIds.filter((id) => !known.has(id)))];
  if (unknown.length === 0) return;
  throw new UsageError(
    `No document with id ${unknown.join(", ")} in this workspace; nothing was deleted. ` +
      "`kgrag status` lists the document ids.",
  );
}

/** Documents read from this file, or from any file under this folder (whether or not it still exists). */
function documentsReadFrom(documents: DocumentRecord[], path: string): DocumentRecord[] {
  const wanted = resolve(path);
  const folder = wanted.endsWith(sep) ? wanted : `${wanted}${sep}`;
  return documents.filter((d) => d.path !== null && (d.path === wanted || d.path.startsWith(folder)));
}

/** A file still on disk is indexed again by the next `kgrag index` of its folder. */
function warnOfFilesStillThere(deleted: DocumentRecord[]): void {
  const files = [...new Set(deleted.flatMap((d) => (d.path && existsSync(d.path) ? [d.path] : [])))];
  if (files.length === 0) return;
  const shown = files.length === 1 ? files[0] : `${files[0]} and ${files.length - 1} more`;
  process.stderr.write(
    `kgrag: note: ${shown} still ${files.length === 1 ? "exists" : "exist"}; the next \`kgrag index\` of ` +
      "its folder indexes it again (remove the file and use `kgrag index --prune` to keep it out).\n",
  );
}

function printSelection(documents: DocumentRecord[], opts: DeleteOptions): void {
  if (opts.json) {
    printJson({
      dryRun: true,
      wouldDelete: documents.map((d) => ({ id: d.id, title: d.title, path: d.path })),
    });
    return;
  }
  const rows = documents.map((d) => [d.id, truncateToWidth(d.title, 40), d.path ?? ""]);
  process.stdout.write(`${formatTable(["id", "title", "path"], rows)}\n`);
  process.stdout.write(
    `Would delete ${counted(documents.length, "document")}; nothing was deleted (--dry-run).\n`,
  );
}
