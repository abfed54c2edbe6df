import { existsSync } from "node:fs";
import { SUPPORTED_EXTENSIONS } from "../../ingest/loaders.js";
import type { IndexSummary } from "../../workspace/indexing.js";
import type { IndexFlags } from "../commands/index-command.js";
import type { OpenKgrag } from "../open.js";
import { printJson } from "../output.js";
import { UsageError } from "../usage-error.js";

/** `kgrag index`: indexes the paths, prints the summary, and sets the exit code from what failed. */
export async function indexAction(open: OpenKgrag, paths: string[], opts: IndexFlags): Promise<void> {
  const missing = paths.filter((path) => !existsSync(path));
  if (missing.length > 0) throw new UsageError(`No such file or folder: ${missing.join(", ")}`);
  const kgrag = await open({ ...opts, create: true });
  try {
    const summary = await kgrag.index(paths, { communities: opts.communities, prune: opts.prune });
    // One line per input left out, on stderr so it shows beside --json output too.
    for (const k of summary.skipped) process.stderr.write(`kgrag: skipped ${k.path}: ${k.reason}\n`);
    if (opts.json) printJson(jsonSummary(summary));
    else process.stdout.write(humanSummary(summary));
    // A run with failures still keeps everything that worked; the exit code tells scripts.
    // Skipped inputs are reported, not failed: an empty or unsupported file is no error, and
    // an unreadable one needs the file fixed, not a retry. Input with nothing to index at all
    // is bad input, though.
    if (nothingIndexable(summary)) throw new UsageError(nothingIndexableMessage(paths, summary));
    if (summary.failures.length > 0) process.exitCode = 1;
  } finally {
    await kgrag.close();
  }
}

/** No document to index, and none whose file is gone: `index --prune` after deleting every file is fine. */
function nothingIndexable(s: IndexSummary): boolean {
  const indexable = s.added.length + s.updated.length + s.resumed.length + s.unchanged.length;
  return indexable + s.removed.length + s.missing.length === 0;
}

function nothingIndexableMessage(paths: string[], s: IndexSummary): string {
  const why = s.skipped.length
    ? `every input was skipped (reasons above)`
    : "no file of a supported type was found";
  return (
    `Nothing to index in ${paths.join(", ")}: ${why}. ` +
    `Give files with text in one of ${SUPPORTED_EXTENSIONS.join(" ")}.`
  );
}

function jsonSummary(s: IndexSummary) {
  return {
    documents: s.documents,
    chunks: s.chunks,
    entities: s.entities,
    relationships: s.relationships,
    failed: s.failed,
    llmCalls: s.llmCalls,
    tokens: s.tokens,
    durationMs: s.durationMs,
    added: s.added.length,
    updated: s.updated.length,
    unchanged: s.unchanged.length,
    removed: s.removed,
    missing: s.missing,
    skipped: s.skipped,
    failures: s.failures,
  };
}

function humanSummary(s: IndexSummary): string {
  const lines = [
    `Indexed in ${(s.durationMs / 1000).toFixed(1)} s: ${s.added.length} new, ${s.updated.length} updated, ` +
      `${s.unchanged.length} unchanged, ${s.removed.length} removed document(s), ${s.skipped.length} input(s) skipped.`,
    `Workspace: ${s.documents} documents, ${s.chunks} chunks, ${s.entities} entities, ${s.relationships} relationships.`,
    `LLM calls: ${s.llmCalls} (${s.tokens} tokens).`,
  ];
  for (const m of s.missing)
    lines.push(`file gone: ${m.path} (document ${m.docId}); run with --prune to remove it`);
  for (const f of s.failures) lines.push(`FAILED ${f.docId}: ${f.error}`);
  if (s.failures.length)
    lines.push(`${s.failures.length} document(s) failed; run \`kgrag index\` again to retry them.`);
  return `${lines.join("\n")}\n`;
}
