import { z } from "zod";
import type { JsonSchemaSpec } from "../../llm/chat-model.js";
import { renderPrompt } from "../../llm/prompts.js";

/**
 * An answer asked as JSON (Ollama's `format`, OpenAI's `response_format`): any JSON object, or one
 * that follows `schema`. Only a chat model can write one: the offline answerer quotes passages.
 */
export const StructuredOutputSchema = z.strictObject({
  /** The schema's name, as OpenAI's json_schema format names it. */
  name: z.string().min(1).optional(),
  /** A JSON Schema; left out, any JSON object. */
  schema: z.record(z.string(), z.unknown()).optional(),
});
export type StructuredOutput = z.infer<typeof StructuredOutputSchema>;

/** What Ollama's `format: "json"` and OpenAI's `json_object` ask for. */
const ANY_OBJECT: Record<string, unknown> = { type: "object" };

export const STRUCTURED_OUTPUT_OFFLINE =
  "A JSON answer (structuredOutput; Ollama's format, OpenAI's response_format) needs a chat model: " +
  "the offline answerer quotes passages and cannot follow a JSON format. Configure an LLM (llm.model), " +
  "or ask without a format.";

/** The structured-output request sent with the answer's model call. */
export function structuredSpec(output: StructuredOutput): JsonSchemaSpec {
  return { name: output.name ?? "answer", schema: output.schema ?? ANY_OBJECT };
}

/** Said to the model too, for endpoints that take no response_format and models that ignore it. */
export function structuredInstruction(output: StructuredOutput): string {
  return renderPrompt("json-answer-instruction", {
    json_schema: JSON.stringify(structuredSpec(output).schema),
  });
}

/**
 * Whether a text is JSON that follows the format: it parses, and matches the schema as far as
 * Zod's reading of JSON Schema goes (a schema it cannot read is checked as JSON only).
 */
export function followsStructuredOutput(text: string, output: StructuredOutput): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  const schema = structuredSpec(output).schema;
  let checker: z.ZodType;
  try {
    checker = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return true;
  }
  return checker.safeParse(value).success;
}
