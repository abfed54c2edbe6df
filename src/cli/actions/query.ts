import {
  BATCH_LINE_FORMAT,
  type BatchEntry,
  isBatchLineError,
  parseBatchLines,
  runBatch,
} from "../../query/batch.js";
import type { QueryOptionsInput } from "../../query/options.js";
import { runQuery } from "../../query/query-engine.js";
import { resultText } from "../../query/result-text.js";
import type { KgragServices } from "../../services.js";
import type { OpenServices } from "../commands/query.js";
import { readInputFile } from "../input-file.js";
import { checkInvocation, type QueryFlags, queryOptions } from "../query-flags.js";
import { USAGE_EXIT_CODE, UsageError } from "../usage-error.js";

/** `kgrag query`: one question, or every question of a --batch file. */
export async function queryAction(
  open: OpenServices,
  question: string | undefined,
  flags: QueryFlags,
): Promise<void> {
  checkInvocation(question, flags);
  // Read before opening the workspace: a wrong path should fail fast and touch nothing.
  const batch = flags.batch ? await readBatch(flags.batch) : undefined;
  const { services, close } = await open(flags);
  try {
    await refuseEmptyWorkspace(services);
    if (batch) await batchQuery(services, batch, flags);
    else await singleQuery(services, question ?? "", flags);
  } finally {
    await close();
  }
}

async function singleQuery(services: KgragServices, question: string, flags: QueryFlags): Promise<void> {
  const stream =
    !flags.json && !flags.contextOnly && services.chat !== null && (flags.stream || process.stdout.isTTY);
  const options: QueryOptionsInput = {
    ...queryOptions(flags),
    onToken: stream ? (delta) => process.stdout.write(delta) : undefined,
  };
  const result = await runQuery(services, question, options);
  // On stderr, beside --json output too (whose `warnings` has them): what the answer alone hides.
  for (const warning of result.warnings ?? []) process.stderr.write(`kgrag: warning: ${warning}\n`);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  if (stream) process.stdout.write("\n\n");
  process.stdout.write(resultText(result, { answerShown: stream }));
}

async function readBatch(file: string): Promise<BatchEntry[]> {
  const text = await readInputFile(
    file,
    "--batch",
    'one {"id", "question", ...query options} JSON object per line',
  );
  const entries = parseBatchLines(text);
  if (entries.length === 0)
    throw new UsageError(`--batch file ${file} has no questions; ${BATCH_LINE_FORMAT}.`);
  return entries;
}

/**
 * Every readable line is answered, in input order; an unreadable one gets an error line in its
 * place. Exit code 2 when any line was not a question, 1 when a question failed at run time.
 */
/** A workspace without documents cannot answer anything: say so instead of "Nothing ... matches". */
async function refuseEmptyWorkspace(services: KgragServices): Promise<void> {
  if ((await services.store.counts()).documents > 0) return;
  const { workspace } = services.config;
  throw new UsageError(
    `The workspace ${workspace} holds no documents yet. Index some first: kgrag index <paths> --workspace ${workspace}`,
  );
}

async function batchQuery(services: KgragServices, entries: BatchEntry[], flags: QueryFlags): Promise<void> {
  const badLines = entries.filter(isBatchLineError).map((e) => e.line);
  let errors = 0;
  await runBatch(services, entries, queryOptions(flags), (outcome) => {
    if ("error" in outcome) errors += 1;
    process.stdout.write(`${JSON.stringify(outcome)}\n`);
  });
  const failed = errors - badLines.length;
  if (badLines.length === 0 && failed === 0) return;
  process.stderr.write(`kgrag: ${batchSummary(entries.length, badLines, failed)}\n`);
  process.exitCode = badLines.length > 0 ? USAGE_EXIT_CODE : 1;
}

function batchSummary(total: number, badLines: number[], failed: number): string {
  const parts = [
    ...(badLines.length > 0
      ? [`${badLines.length} of ${total} line(s) not a question (line ${listSome(badLines)})`]
      : []),
    ...(failed > 0 ? [`${failed} question(s) failed`] : []),
  ];
  const answered = total - badLines.length - failed;
  return `${parts.join(" and ")}; ${answered} answered. See the "error" output lines.`;
}

function listSome(lines: number[], shown = 10): string {
  const more = lines.length - shown;
  return lines.slice(0, shown).join(", ") + (more > 0 ? ` and ${more} more` : "");
}
