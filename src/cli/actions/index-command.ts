import { existsSync } from "node:fs";
import { extname } from "node:path";
import { SUPPORTED_EXTENSIONS } from "../../ingest/loaders.js";
import type { SkippedSource } from "../../ingest/source-types.js";
import { IndexInterruptedError, type IndexProgress, notChunkedPart } from "../../pipeline/interrupted.js";
import { counted } from "../../util/counted.js";
import type { IndexSummary } from "../../workspace/indexing.js";
import type { IndexFlags } from "../commands/index-command.js";
import { INTERRUPTED_EXIT_CODE, runStoppable } from "../interrupt.js";
import { money } from "../money.js";
import { type OpenKgrag, undoCreatedWorkspace, workspaceToCreate } from "../open.js";
import { printJson } from "../print-json.js";
import { parseKeyValues } from "../query-flags.js";
import { USAGE_EXIT_CODE, UsageError } from "../usage-error.js";

/** `kgrag index`: indexes the paths, prints the summary, and sets the exit code from what failed. */
export async function indexAction(open: OpenKgrag, paths: string[], opts: IndexFlags): Promise<void> {
  const missing = paths.filter((path) => !existsSync(path));
  if (missing.length > 0) throw new UsageError(`No such file or folder: ${missing.join(", ")}`);
  const metadata = opts.meta
    ? parseKeyValues(opts.meta, "--meta", "a document has one value per key")
    : undefined;
  const created = workspaceToCreate(opts.workspace);
  const kgrag = await open({ ...opts, create: true });
  let nothingDone = false;
  try {
    const summary = await runStoppable((signal) =>
      // Commander makes --no-communities `true` when absent: only its `false` overrides the config.
      kgrag.index(paths, {
        communities: opts.communities === false ? false : undefined,
        prune: opts.prune,
        signal,
        ...(metadata ? { metadata } : {}),
      }),
    );
    const { badLines, skipped } = splitBadLines(summary.skipped);
    // On stderr so it shows beside --json output too (whose `skipped` lists every one).
    for (const line of skippedLines(skipped)) process.stderr.write(`kgrag: ${line}\n`);
    for (const b of badLines) process.stderr.write(`kgrag: ${JSON.stringify(b)}\n`);
    for (const note of keptAsIndexedNotes(summary, kgrag.components.extractor.kind, paths)) {
      process.stderr.write(`kgrag: note: ${note}\n`);
    }
    if (opts.json) printJson({ ...jsonSummary(summary), skipped, badLines });
    // A run that indexed nothing has no summary worth reading: only the reason is said.
    else if (!nothingIndexable(summary)) process.stdout.write(humanSummary(summary));
    // A run with failures still keeps everything that worked; the exit code tells scripts.
    // Skipped inputs are reported, not failed: an empty or unsupported file is no error, and
    // an unreadable one needs the file fixed, not a retry. Input with nothing to index at all
    // is bad input, though.
    if (nothingIndexable(summary)) {
      nothingDone = true;
      throw new UsageError(nothingIndexableMessage(paths, summary));
    }
    if (summary.failures.length > 0) process.exitCode = 1;
    // Like `query --batch`: the good lines are done, the bad ones are bad input to fix.
    if (badLines.length > 0) {
      process.stderr.write(
        `kgrag: ${badLines.length} .jsonl line(s) not a document; the other lines were indexed.\n`,
      );
      process.exitCode = USAGE_EXIT_CODE;
    }
  } catch (error) {
    if (!(error instanceof IndexInterruptedError)) throw error;
    kgrag.services.progress.close?.();
    if (opts.json) printJson({ interrupted: true, ...error.progress });
    else process.stdout.write(interruptedSummary(error.progress));
    process.exitCode = INTERRUPTED_EXIT_CODE;
  } finally {
    await kgrag.close();
    // Nothing indexable leaves no workspace behind, so no later query finds an empty one.
    if (nothingDone && created) undoCreatedWorkspace(created);
  }
}

/**
 * Unchanged documents are neither cut nor extracted again, whatever did it before: a user who
 * configured a model after trying the offline built-ins, or other chunk sizes, would otherwise
 * believe the new settings built the graph.
 */
function keptAsIndexedNotes(summary: IndexSummary, extractor: string, paths: string[]): string[] {
  const quoted = paths.map((p) => (/^[\w./-]+$/.test(p) ? p : JSON.stringify(p))).join(" ");
  const again = `\`kgrag delete --path ${quoted}\`, then \`kgrag index ${quoted}\` (hand edits are kept).`;
  const these = (n: number) => (n === 1 ? "1 unchanged document keeps" : `${n} unchanged documents keep`);
  const notes: string[] = [];
  const { extractedByOthers: extracted, chunkedOtherwise: chunked } = summary;
  if (extracted) {
    notes.push(
      `${these(extracted.documents)} the graph the ${extracted.extractors.join(" and ")} extractor made; ` +
        `the configured ${extractor} extractor reads only new and edited documents. ` +
        `To extract them again with it: ${again}`,
    );
  }
  if (chunked) {
    notes.push(
      `${these(chunked.documents)} the chunks cut with ${chunked.chunking.join("; ")}; the configured ` +
        `chunking (${chunked.configured}) cuts only new and edited documents. To cut them again: ${again}`,
    );
  }
  return notes;
}

/** A .jsonl line that could not be read as a document: {path, line, error}, as `query --batch` reports one. */
interface BadLine {
  path: string;
  line: number;
  error: string;
}

function splitBadLines(all: SkippedSource[]): { badLines: BadLine[]; skipped: SkippedSource[] } {
  const badLines: BadLine[] = [];
  const skipped: SkippedSource[] = [];
  for (const skip of all) {
    if (skip.line === undefined) skipped.push(skip);
    else
      badLines.push({
        path: skip.path.slice(0, -`:${skip.line}`.length),
        line: skip.line,
        error: skip.reason,
      });
  }
  return { badLines, skipped };
}

/** Files of a type kgrag does not read are named one by one up to this many, then counted by type. */
const UNSUPPORTED_NAMED = 5;

/**
 * One line per input left out, except files of types kgrag does not read: a folder of images
 * would bury the other reasons, so past a few they are counted by extension in one line.
 */
function skippedLines(skipped: SkippedSource[]): string[] {
  const unsupported = skipped.filter((s) => isUnsupportedType(s.reason));
  const named =
    unsupported.length > UNSUPPORTED_NAMED ? skipped.filter((s) => !isUnsupportedType(s.reason)) : skipped;
  const lines = named.map((s) => `skipped ${s.path}: ${s.reason}`);
  if (named.length === skipped.length) return lines;
  const byType = new Map<string, number>();
  for (const s of unsupported) {
    const type = extname(s.path).toLowerCase() || "no extension";
    byType.set(type, (byType.get(type) ?? 0) + 1);
  }
  const counts = [...byType]
    .sort(([, a], [, b]) => b - a)
    .map(([type, n]) => `${type} (${n})`)
    .join(", ");
  lines.push(
    `skipped ${unsupported.length} files of types kgrag does not read: ${counts}; ` +
      `supported: ${SUPPORTED_EXTENSIONS.join(" ")} (--json lists each file)`,
  );
  return lines;
}

function isUnsupportedType(reason: string): boolean {
  return reason.startsWith("unsupported file type") || reason.startsWith("no file extension");
}

/** No document to index, and none whose file is gone: `index --prune` after deleting every file is fine. */
function nothingIndexable(s: IndexSummary): boolean {
  const indexable =
    s.added.length + s.updated.length + s.resumed.length + s.unchanged.length + s.metadataUpdated.length;
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
    cost: s.cost,
    embedding: s.embedding,
    durationMs: s.durationMs,
    stagesMs: s.stages,
    added: s.added.length,
    updated: s.updated.length,
    resumed: s.resumed.length,
    unchanged: s.unchanged.length,
    metadataUpdated: s.metadataUpdated.length,
    ...(s.extractedByOthers ? { extractedByOthers: s.extractedByOthers } : {}),
    ...(s.chunkedOtherwise ? { chunkedOtherwise: s.chunkedOtherwise } : {}),
    removed: s.removed,
    missing: s.missing,
    skipped: s.skipped,
    failures: s.failures,
  };
}

function interruptedSummary(progress: IndexProgress): string {
  const { documents, chunks } = progress;
  return (
    `Interrupted: ${documents.done} of ${documents.done + documents.pending} document(s) done, ` +
    `${documents.pending} left; ${chunks.done} chunk(s) merged, ${chunks.pending} pending` +
    `${notChunkedPart(progress)}.\n` +
    "Everything done is kept: run the same `kgrag index` again to resume.\n"
  );
}

/** Documents an interrupted run had started, finished by this one: said only when there are some. */
function resumedPart(s: IndexSummary): string {
  return s.resumed.length > 0 ? `${s.resumed.length} resumed, ` : "";
}

/** Documents whose metadata alone changed (updated in place, not extracted): said only when there are some. */
function metadataUpdatedPart(s: IndexSummary): string {
  return s.metadataUpdated.length > 0 ? `${s.metadataUpdated.length} metadata updated, ` : "";
}

/** The run's chat calls and, at a configured price, their cost (the embedding line has its own). */
function llmLine(s: IndexSummary): string {
  const chatCost = s.cost - s.embedding.cost;
  const cost = chatCost > 0 ? `, ${money(chatCost)}` : "";
  return `LLM calls: ${s.llmCalls} (${s.tokens} tokens${cost}).`;
}

/** As the dry run's embedding row: requests, tokens and, at a configured price, the cost. */
function embeddingLine(e: IndexSummary["embedding"]): string {
  const cost = e.cost > 0 ? `, ${money(e.cost)}` : "";
  return `Embedding requests: ${e.requests} (${e.tokens} tokens${cost}).`;
}

function humanSummary(s: IndexSummary): string {
  const lines = [
    `Indexed in ${(s.durationMs / 1000).toFixed(1)} s: ${s.added.length} new, ${s.updated.length} updated, ` +
      `${resumedPart(s)}${metadataUpdatedPart(s)}${s.unchanged.length} unchanged, ` +
      `${s.removed.length} removed document(s), ` +
      `${s.skipped.length} input(s) skipped.`,
    `Workspace: ${counted(s.documents, "document")}, ${counted(s.chunks, "chunk")}, ` +
      `${counted(s.entities, "entity", "entities")}, ${counted(s.relationships, "relationship")}.`,
    llmLine(s),
    embeddingLine(s.embedding),
  ];
  for (const m of s.missing)
    lines.push(`file gone: ${m.path} (document ${m.docId}); run with --prune to remove it`);
  for (const f of s.failures) lines.push(`FAILED ${f.title} (document ${f.docId}): ${f.error}`);
  if (s.failures.length)
    lines.push(`${s.failures.length} document(s) failed; run \`kgrag index\` again to retry them.`);
  return `${lines.join("\n")}\n`;
}
