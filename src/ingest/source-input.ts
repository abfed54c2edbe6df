import { z } from "zod";
import type { SourceDocument, SourceDocumentInput } from "../types.js";
import { mustBe } from "../util/zod-messages.js";

/** Thrown before anything is written when `Kgrag.index` is given documents it cannot store. */
export class InvalidSourceDocumentError extends Error {
  override readonly name = "InvalidSourceDocumentError";
}

const SHAPE = "{ id, title, text, path?, metadata? }";
const MAX_LISTED_PROBLEMS = 5;

const nonEmptyId = z
  .string(mustBe("a non-empty string"))
  .refine((id) => id.trim() !== "", "must be a non-empty string");

// The same value types as Metadata in src/types.ts: what both storage adapters keep as written.
const metadataValue = z.union([z.string(), z.number(), z.boolean()], {
  error: "must be a string, number or boolean",
});

/** A document's metadata as the library, a sidecar file and `--meta` give it. */
export const MetadataSchema = z.record(z.string(), metadataValue, mustBe("an object"));

const SourceDocumentInputSchema = z.object(
  {
    id: nonEmptyId,
    title: z.string(mustBe("a string")),
    text: z.string(mustBe("a string")),
    path: z.string(mustBe("a string or null")).nullable().optional(),
    metadata: MetadataSchema.optional(),
  },
  { error: `must be a document object ${SHAPE}` },
);

/**
 * Validates documents handed to the library and fills the optional fields, so a bad document is
 * refused with its position, id and field instead of failing deep in storage.
 */
export function parseSourceDocuments(inputs: unknown): SourceDocument[] {
  if (!Array.isArray(inputs)) {
    throw new InvalidSourceDocumentError(
      `Cannot index ${typeof inputs}: pass an array of file/folder paths or of documents ${SHAPE}.`,
    );
  }
  const documents: SourceDocument[] = [];
  const problems: string[] = [];
  const firstIndexOf = new Map<string, number>();
  inputs.forEach((input, index) => {
    const parsed = SourceDocumentInputSchema.safeParse(input);
    if (!parsed.success) {
      problems.push(...parsed.error.issues.map((issue) => describeIssue(input, index, issue)));
      return;
    }
    const first = firstIndexOf.get(parsed.data.id);
    if (first !== undefined) {
      problems.push(`${label(input, index)}: id repeats documents[${first}]'s; ids must be unique`);
      return;
    }
    firstIndexOf.set(parsed.data.id, index);
    documents.push(withDefaults(parsed.data));
  });
  if (problems.length > 0) throw new InvalidSourceDocumentError(problemMessage(problems));
  return documents;
}

function withDefaults(input: SourceDocumentInput): SourceDocument {
  return {
    id: input.id,
    title: input.title,
    path: input.path ?? null,
    text: input.text,
    metadata: input.metadata ?? {},
  };
}

function describeIssue(input: unknown, index: number, issue: z.core.$ZodIssue): string {
  const field = issue.path.map(String).join(".");
  const hint = typeof input === "string" ? " (pass either paths or documents, not both)" : "";
  return `${label(input, index)}: ${field ? `${field} ` : ""}${issue.message}${hint}`;
}

/** `documents[2] (id "obj3")`: the position always, the id when there is a usable one. */
function label(input: unknown, index: number): string {
  const id = typeof input === "object" && input !== null && "id" in input ? input.id : undefined;
  return typeof id === "string" && id.trim()
    ? `documents[${index}] (id ${JSON.stringify(id)})`
    : `documents[${index}]`;
}

function problemMessage(problems: string[]): string {
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS);
  const more = problems.length - listed.length;
  return (
    `Cannot index these documents: ${listed.join("; ")}${more > 0 ? `; and ${more} more` : ""}. ` +
    `Each document is ${SHAPE}, with metadata values strings, numbers or booleans; nothing was indexed.`
  );
}
