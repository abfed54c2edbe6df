import { z } from "zod";
import type { CypherValidation } from "../../cypher/validator.js";
import { parseJsonLine } from "../../util/jsonl-line.js";
import { mustBe } from "../../util/zod-messages.js";
import { readInputFile } from "../input-file.js";
import { printJson } from "../print-json.js";
import { USAGE_EXIT_CODE, UsageError } from "../usage-error.js";

const LINE_FORMAT = 'each line must be a JSON object {"id": ..., "cypher": "..."}';

const BatchLineSchema = z.object(
  {
    id: z.union([z.string(), z.number()], mustBe("a string or a number", "id")),
    cypher: z.string(mustBe("text", "cypher")).refine((text) => text.trim() !== "", '"cypher" is empty'),
  },
  { error: "not a JSON object" },
);

/** A validated line, or (like `kgrag query --batch`) a line that is not a query, reported in its place. */
type BatchResult =
  | ({ id: string | number } & CypherValidation)
  | { id: string | number | null; line: number; error: string };

/**
 * Input lines {"id","cypher"}; output lines {"id","valid","readOnly","errors","warnings"}, or
 * {"id","line","error"} for a line that is not a query. Exit code 2 when any line was not a query
 * (bad input), 1 when a query is invalid.
 */
export async function validateBatch(
  file: string,
  validate: (query: string) => CypherValidation,
  asArray: boolean,
): Promise<void> {
  const text = await readInputFile(file, "--batch", 'one {"id", "cypher"} JSON object per line');
  if (!text.trim())
    throw new UsageError(`--batch file ${file} is empty; give one {"id", "cypher"} JSON object per line.`);
  const results = text.split(/\r?\n/).flatMap((line, index): BatchResult[] => {
    if (line.trim() === "") return [];
    const parsed = parseLine(line, index + 1);
    return ["error" in parsed ? parsed : { id: parsed.id, ...validate(parsed.cypher) }];
  });
  if (asArray) printJson(results);
  else for (const result of results) process.stdout.write(`${JSON.stringify(result)}\n`);
  const badLines = results.flatMap((r) => ("line" in r ? [r.line] : []));
  const queries = results.length - badLines.length;
  const valid = results.filter((r) => "valid" in r && r.valid).length;
  const notQueries = badLines.length
    ? `; ${badLines.length} of ${results.length} line(s) not a query (line ${badLines.join(", ")}), see their "error"`
    : "";
  process.stderr.write(`kgrag: ${valid}/${queries} queries valid${notQueries}\n`);
  if (badLines.length) process.exitCode = USAGE_EXIT_CODE;
  else if (valid < queries) process.exitCode = 1;
}

type LineError = Extract<BatchResult, { error: string }>;

function parseLine(text: string, line: number): { id: string | number; cypher: string } | LineError {
  const parsed = parseJsonLine(text, line, BatchLineSchema, LINE_FORMAT);
  return parsed.ok ? parsed.value : { id: parsed.id, line, error: parsed.error };
}
