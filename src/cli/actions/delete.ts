import type { Kgrag } from "../../kgrag.js";
import { counted } from "../../util/counted.js";
import type { OpenKgrag } from "../open.js";
import { printJson } from "../print-json.js";
import { UsageError } from "../usage-error.js";

/** `kgrag delete`: refuses unknown ids, then deletes the documents and settles the graph. */
export async function deleteAction(
  open: OpenKgrag,
  docIds: string[],
  opts: { workspace?: string; json?: boolean },
): Promise<void> {
  const kgrag = await open(opts);
  try {
    await refuseUnknownIds(kgrag, docIds);
    const result = await kgrag.deleteDocuments(docIds);
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

/** A mistyped id is bad input: all ids are checked before anything is deleted. */
async function refuseUnknownIds(kgrag: Kgrag, docIds: string[]): Promise<void> {
  const known = new Set((await kgrag.services.store.listDocuments()).map((d) => d.id));
  const unknown = [...new Set(docIds.filter((id) => !known.has(id)))];
  if (unknown.length === 0) return;
  throw new UsageError(
    `No document with id ${unknown.join(", ")} in this workspace; nothing was deleted. ` +
      "`kgrag status` lists the document ids.",
  );
}
