import { createReadStream } from "node:fs";
import { basename } from "node:path";
import { createInterface } from "node:readline";
import { z } from "zod";
import type { Metadata, SourceDocument } from "../types.js";
import { hashText } from "../util/hash.js";
import { parseJsonLine } from "../util/jsonl-line.js";
import { mustBe } from "../util/zod-messages.js";
import { emptySource, hasText } from "./empty-input.js";
import type { LoadEvent } from "./source-types.js";

const LINE_SHAPE = '{"id"?, "title"?, "text", "metadata"?}';

const JsonlRecordSchema = z.object(
  {
    id: z
      .union([z.string().trim().min(1), z.number()], mustBe("a non-empty string or a number", "id"))
      .optional(),
    title: z.string(mustBe("a string", "title")).optional(),
    text: z.string(mustBe("a string", "text")),
    metadata: z
      .record(
        z.string(),
        z.union([z.string(), z.number(), z.boolean()], {
          error: '"metadata" values must be strings, numbers or booleans',
        }),
        mustBe("an object", "metadata"),
      )
      .optional(),
  },
  { error: "must be a JSON object" },
);
type JsonlRecord = z.infer<typeof JsonlRecordSchema>;

/**
 * One document per line of `{"id"?, "title"?, "text", "metadata"?}`, read line by line so files of
 * any size stream through. A bad line is reported with its file:line and the rest still load.
 * `seenIds` spans the whole load, so an id reused in another line or file is reported, not merged.
 */
export async function* loadJsonl(
  path: string,
  seenIds: Map<string, string>,
  runMetadata: Metadata = {},
): AsyncGenerator<LoadEvent> {
  // Read as latin1 (one char per byte) so each line's bytes can be checked as UTF-8 on their own:
  // a bad line is reported and the rest still load. "\n" and "\r" never occur inside UTF-8 sequences.
  const input = createReadStream(path, { encoding: "latin1" });
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let lineNumber = 0;
  for await (const raw of lines) {
    lineNumber += 1;
    const line = decodeUtf8(raw);
    if (line === null) {
      yield {
        kind: "skipped",
        path: `${path}:${lineNumber}`,
        reason: "not valid UTF-8 text: convert the file to UTF-8",
        unreadable: true,
        line: lineNumber,
      };
    } else if (line.trim()) {
      yield lineEvent(line, path, lineNumber, seenIds, runMetadata);
    }
  }
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function decodeUtf8(latin1: string): string | null {
  try {
    return strictUtf8.decode(Buffer.from(latin1, "latin1"));
  } catch {
    return null;
  }
}

function lineEvent(
  line: string,
  path: string,
  lineNumber: number,
  seenIds: Map<string, string>,
  runMetadata: Metadata,
): LoadEvent {
  const where = `${path}:${lineNumber}`;
  const parsed = parseJsonLine(line, lineNumber, JsonlRecordSchema, LINE_SHAPE);
  if (!parsed.ok)
    return {
      kind: "skipped",
      path: where,
      reason: lineProblem(parsed.problem),
      unreadable: true,
      line: lineNumber,
    };
  const document = toDocument(parsed.value, path, lineNumber, runMetadata);
  if (!hasText(document.text)) return { kind: "skipped", ...emptySource(where, document.id) };
  const firstSeen = seenIds.get(document.id);
  if (firstSeen) {
    return {
      kind: "skipped",
      path: where,
      reason: `duplicate document id ${document.id} (first at ${firstSeen})`,
    };
  }
  seenIds.set(document.id, where);
  return { kind: "document", document };
}

function lineProblem(problem: string): string {
  return problem === "not valid JSON" ? problem : `expected ${LINE_SHAPE}: ${problem}`;
}

function toDocument(
  record: JsonlRecord,
  path: string,
  lineNumber: number,
  runMetadata: Metadata,
): SourceDocument {
  const title = record.title?.trim() ?? "";
  const body = record.text.trim() ? record.text : "";
  // Short passages often name their subject only in the title, so the title is indexed too.
  // A title alone is not content: a blank text stays empty and the line is skipped as empty.
  const text = title && body ? `${title}\n\n${body}` : body;
  return {
    id: record.id === undefined ? contentDocumentId(path, text) : String(record.id),
    title: title || `${basename(path)} line ${lineNumber}`,
    path,
    text,
    // The run's metadata (`--meta`) is a default: a line's own metadata wins.
    metadata: { source: path, format: "jsonl", line: lineNumber, ...runMetadata, ...record.metadata },
  };
}

/**
 * Without an id a line is identified by its file and content, so inserting or reordering lines
 * changes nothing; give ids to have an edited line update its document in place.
 */
function contentDocumentId(path: string, text: string): string {
  return `doc-${hashText(`${path}\n${text}`)}`;
}
