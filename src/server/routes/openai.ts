import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { StructuredOutput } from "../../query/answer/structured-output.js";
import type { QueryResult } from "../../query/result.js";
import type { ServerContext } from "../context.js";
import { ApiError } from "../errors.js";
import { askedTurns } from "./chat-turns.js";
import { answer, OLLAMA_MODEL, workspaceModel, workspaceOfModel } from "./ollama.js";
import type { AnswerFormat } from "./ollama-answer.js";

// OpenAI's chat completions, as Ollama serves them beside its own API (/v1): the clients that
// speak only OpenAI's protocol (LibreChat, Continue, LangChain's ChatOpenAI...) reach the same
// models, questions and answers as /api/chat.

/** A message's content: a string, or parts of which the text ones are read (images are not). */
const ContentSchema = z
  .union([z.string(), z.array(z.object({ type: z.string(), text: z.string().optional() })), z.null()])
  .optional();

const CompletionBodySchema = z.object({
  model: z.string().default(OLLAMA_MODEL),
  messages: z
    .array(
      z.object({
        role: z.enum(["system", "developer", "user", "assistant", "tool", "function"]),
        content: ContentSchema,
      }),
    )
    .min(1, "messages must hold at least one message"),
  stream: z.boolean().default(false),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
  response_format: z
    .discriminatedUnion("type", [
      z.object({ type: z.literal("text") }),
      z.object({ type: z.literal("json_object") }),
      z.object({
        type: z.literal("json_schema"),
        json_schema: z.object({
          name: z.string().min(1),
          schema: z.record(z.string(), z.unknown()).optional(),
        }),
      }),
    ])
    .nullish(),
});

type ResponseFormat = z.infer<typeof CompletionBodySchema>["response_format"];

/** The JSON answer an OpenAI `response_format` asks for, if any (json_object: any JSON object). */
export function openAiStructuredOutput(format: ResponseFormat): StructuredOutput | undefined {
  if (!format || format.type === "text") return undefined;
  if (format.type === "json_object") return {};
  const { name, schema } = format.json_schema;
  return { name, ...(schema ? { schema } : {}) };
}

type Content = z.infer<typeof ContentSchema>;

function textOf(content: Content): string {
  if (typeof content === "string") return content;
  return (content ?? [])
    .filter((part) => part.type === "text")
    .map((part) => part.text ?? "")
    .join("\n");
}

/** OpenAI's token counts from the query's model calls (none offline, or for a text kgrag answered itself). */
function usageOf(result: QueryResult | undefined) {
  const prompt = result?.usage.promptTokens ?? 0;
  const completion = result?.usage.completionTokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/**
 * OpenAI's completion object, or its server-sent chunks: the text as `delta.content`, a last chunk
 * with finish_reason "stop" (then the usage, when asked for with stream_options), then [DONE].
 */
export function openAiFormat(model: string, includeUsage: boolean): AnswerFormat {
  const id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const event = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    event({ id, object: "chat.completion.chunk", created, model, choices, ...extra });
  return {
    whole: (text, result) => ({
      id,
      object: "chat.completion",
      created,
      model,
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
      usage: usageOf(result),
    }),
    streamType: "text/event-stream",
    piece: (text) => chunk([{ index: 0, delta: { role: "assistant", content: text }, finish_reason: null }]),
    end: (result) =>
      chunk([{ index: 0, delta: {}, finish_reason: "stop" }]) +
      (includeUsage ? chunk([], { usage: usageOf(result) }) : "") +
      "data: [DONE]\n\n",
    // What OpenAI's clients read as an error in a stream.
    failure: (message) => `${event({ error: { message, type: "server_error" } })}data: [DONE]\n\n`,
  };
}

export async function openAiRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const created = Math.floor(Date.now() / 1000);

  api.get(
    "/v1/models",
    { schema: { tags: ["openai"], summary: "OpenAI-compatible model list: the models of /api/tags" } },
    async (request: FastifyRequest) => {
      const ids = ctx.registry.visible(request.apiKey);
      const names = ids.map((id, i) => (i === 0 ? OLLAMA_MODEL : workspaceModel(id, ids)));
      return {
        object: "list",
        data: names.map((name) => ({ id: name, object: "model", created, owned_by: "kgrag" })),
      };
    },
  );

  api.post(
    "/v1/chat/completions",
    {
      schema: {
        tags: ["openai"],
        summary:
          "OpenAI-compatible chat completion (SSE with stream: true): the same models, /mode prefixes and cited answers as /api/chat",
        body: CompletionBodySchema,
      },
    },
    async (request, reply) => {
      const { model, messages, stream, stream_options, response_format } = request.body;
      const workspace = workspaceOfModel(model, request, ctx.registry);
      if (!workspace) throw new ApiError(404, "model_not_found", `The model '${model}' does not exist`);
      const turns = askedTurns(messages.map((m) => ({ role: m.role, content: textOf(m.content) })));
      const asked = { ...turns, output: openAiStructuredOutput(response_format) };
      const format = openAiFormat(model, stream_options?.include_usage === true);
      return answer(request, reply, workspace, asked, format, stream);
    },
  );
}
