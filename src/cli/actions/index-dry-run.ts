import { existsSync } from "node:fs";
import { loadConfig } from "../../config.js";
import {
  type DryRunReport,
  dryRunIndex,
  type EmbeddingEstimate,
  type IndexDryRunReport,
} from "../../estimate/dry-run.js";
import { usePromptOverrides } from "../../llm/prompts.js";
import type { IndexFlags } from "../commands/index-command.js";
import { money } from "../money.js";
import { formatTable } from "../output.js";
import { printJson } from "../print-json.js";
import { UsageError } from "../usage-error.js";

/**
 * `kgrag index --dry-run`: what indexing the paths would cost, with no model called (reports: only
 * those of the communities the paths change, when the workspace has communities already).
 */
export async function indexDryRunAction(paths: string[], opts: IndexFlags): Promise<void> {
  const missing = paths.filter((path) => !existsSync(path));
  if (missing.length > 0) throw new UsageError(`No such file or folder: ${missing.join(", ")}`);
  if (opts.prune)
    throw new UsageError(
      "--dry-run does not estimate --prune: it estimates what indexing the paths asks of the models, as an update of the workspace, and leaves out the removal of documents whose files are gone (which calls no model, but changes the communities those documents were in); run the dry run without --prune",
    );
  const { config } = loadConfig(process.env, {
    ...(opts.workspace ? { workspace: opts.workspace } : {}),
    // --no-communities builds no reports, so the estimate has none either.
    ...(opts.communities === false ? { community: { enabled: false } } : {}),
  });
  usePromptOverrides(config.prompts);
  const report = await dryRunIndex(config, paths);
  if (opts.json) printJson(report);
  else process.stdout.write(humanReport(report));
}

/** One embedding row, or one per stage when entity resolution embeds the entities first. */
function embeddingRows(e: DryRunReport["embedding"]): (string | number)[][] {
  const model = e.model ?? "hashing";
  const row = (label: string, s: EmbeddingEstimate) => [label, model, s.calls, s.tokens, 0, money(s.cost)];
  const { embed, resolve } = e.stages;
  return resolve
    ? [row("embedding (resolve)", resolve), row("embedding (embed)", embed)]
    : [row("embedding", e)];
}

/** On a workspace with communities, only the ones the documents change get a report. */
function updateNote(r: DryRunReport): string {
  const existing = r.assumed.existingCommunities;
  return existing > 0 ? ` (the communities of the workspace's ${existing} that these documents change)` : "";
}

/** What the estimate left out as indexed already, or why it could not tell. */
function workspaceNote(r: IndexDryRunReport): string {
  if (!r.workspaceRead)
    return (
      "Neo4j storage: the dry run does not open the database, so every document is counted as new " +
      "and the workspace's existing communities were not read (reports counted as for a new workspace)."
    );
  const lines = [
    `${r.unchanged} document(s) already indexed with the same content were left out: a run skips them.`,
  ];
  if (r.updated > 0)
    lines.push(
      `${r.updated} document(s) changed since indexed: estimated with their old version removed from the graph, as a run removes it first.`,
    );
  if (r.resumed > 0)
    lines.push(
      `${r.resumed} document(s) an earlier run did not finish: ${r.chunksDone} of their chunks were merged already and are not counted again.`,
    );
  return lines.join("\n");
}

function humanReport(r: IndexDryRunReport): string {
  const rows = Object.entries(r.stages).map(([stage, s]) => [
    stage,
    s?.model ?? "-",
    s?.calls ?? 0,
    s?.inputTokens ?? 0,
    s?.outputTokens ?? 0,
    money(s?.cost ?? 0),
  ]);
  rows.push(...embeddingRows(r.embedding));
  rows.push(["total", "", r.totals.calls, r.totals.inputTokens, r.totals.outputTokens, money(r.totals.cost)]);
  const lines = [
    `Dry run: ${r.documents} document(s), ${r.chunks} chunk(s) (${r.chunkTokens} tokens), ${r.skipped.length} input(s) skipped.`,
    workspaceNote(r),
    formatTable(["stage", "model", "calls", "input tokens", "output tokens", "cost"], rows),
    `Embedding inputs: ${r.embedding.inputs}. Expected graph: ${r.assumed.entities} entities, ` +
      `${r.assumed.relationships} relationships, ${r.assumed.reports} reports${updateNote(r)}.`,
    "Extraction calls and prompts are computed from the real prompts and chunks. Answers, summaries " +
      "and reports are estimated on a stand-in graph from the offline extractor, sized by config " +
      '"estimate".',
  ];
  if (!r.llmConfigured)
    lines.push("No LLM configured: the offline built-ins would run instead, calling no model.");
  return `${lines.join("\n")}\n`;
}
