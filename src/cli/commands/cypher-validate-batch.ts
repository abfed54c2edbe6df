import { z } from "zod";
import type { CypherValidation } from "../../cypher/validator.js";
import { readInputFile } from "../input-file.js";
import { printJson, USAGE_EXIT_CODE, UsageError } from "../output.js";

const LINE_FORMAT = 'each line must be a JSON object {"id": ..., "cypher": "..."}';

const BatchLineSchema = z.object(
  {
    id: z.union([z.string(), z.number()], {
      error: (issue) => (issue.input === undefined ? 'missing "id"' : '"id" must be a string or a number'),
    }),
    cypher: z
      .string({
        error: (issue) => (issue.input === undefined ? 'missing "cypher"' : '"cypher" must be text'),
      })
      .refine((text) => text.trim() !== "", '"cypher" is empty'),
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
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { id: null, line, error: `line ${line} is not valid JSON; ${LINE_FORMAT}` };
  }
  const parsed = BatchLineSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const problems = [...new Set(parsed.error.issues.map((issue) => issue.message))].join(", ");
  return { id: readableId(json), line, error: `line ${line}: ${problems}; ${LINE_FORMAT}` };
}

function readableId(json: unknown): string | number | null {
  const id = typeof json === "object" && json !== null ? (json as { id?: unknown }).id : undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
