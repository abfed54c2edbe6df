import { APIError } from "openai";
import type { ResponseFormatJSONObject, ResponseFormatJSONSchema } from "openai/resources/shared";
import type { JsonSchemaSpec } from "./chat-model.js";

/** Structured-output support, best first; local servers (Ollama, vLLM, llama.cpp) vary. */
const FORMAT_LEVELS = ["json_schema", "json_object", "none"] as const;
export type FormatLevel = (typeof FORMAT_LEVELS)[number];

/** Newer OpenAI models refuse `max_tokens`; many local servers only know it. */
export type MaxTokensParam = "max_tokens" | "max_completion_tokens";

type ResponseFormat = ResponseFormatJSONSchema | ResponseFormatJSONObject;

function rejectionText(error: unknown): string | undefined {
  if (!(error instanceof APIError) || error.status !== 400) return undefined;
  return `${error.message} ${JSON.stringify(error.error ?? "")}`;
}

/** An HTTP 400 that blames the structured-output request rather than the prompt. */
export function rejectsResponseFormat(error: unknown): boolean {
  const text = rejectionText(error);
  return text !== undefined && /response_format|json_schema|json_object/i.test(text);
}

export function rejectsMaxTokens(error: unknown): boolean {
  const text = rejectionText(error);
  return text !== undefined && /max_tokens/i.test(text) && /max_completion_tokens/i.test(text);
}

/**
 * What one endpoint turned out to accept, learnt from its 400 answers and remembered for the life
 * of the model instance so later calls do not pay for the same rejection again.
 */
export class EndpointQuirks {
  private formatIndex = 0;
  private tokensParam: MaxTokensParam = "max_tokens";

  get format(): FormatLevel {
    return FORMAT_LEVELS[this.formatIndex] ?? "none";
  }

  get maxTokensParam(): MaxTokensParam {
    return this.tokensParam;
  }

  /**
   * Steps one level down from `seen` (the level the failed request used). Concurrent calls that
   * failed on the same level step down only once. False when there is nothing left to drop.
   */
  downgradeFormat(seen: FormatLevel): boolean {
    if (seen === "none") return false;
    if (this.format === seen) this.formatIndex += 1;
    return true;
  }

  switchToMaxCompletionTokens(): boolean {
    if (this.tokensParam === "max_completion_tokens") return false;
    this.tokensParam = "max_completion_tokens";
    return true;
  }
}

export function responseFormatFor(
  spec: JsonSchemaSpec | undefined,
  level: FormatLevel,
): ResponseFormat | undefined {
  if (!spec || level === "none") return undefined;
  if (level === "json_object") return { type: "json_object" };
  return { type: "json_schema", json_schema: { name: spec.name, schema: spec.schema, strict: false } };
}
