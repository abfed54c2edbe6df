import { createHash } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { HistoryMessage } from "../../query/options.js";
import { QUERY_MODES, type QueryMode } from "../../query/options.js";
import type { QueryResult } from "../../query/result.js";
import { citedSources, communitySourceLine } from "../../query/result-text.js";
import type { ServerContext } from "../context.js";
import { badRequest, streamFailure } from "../errors.js";
import { workspaceOf } from "../request-workspace.js";

/** The one model the Ollama-compatible API lists: the workspace answering in the chosen mode. */
export const OLLAMA_MODEL = "kgrag:latest";

const ChatBodySchema = z.object({
  model: z.string().default(OLLAMA_MODEL),
  messages: z
    .array(z.object({ role: z.enum(["system", "user", "assistant", "tool"]), content: z.string() }))
    .min(1, "messages must hold at least one message"),
  stream: z.boolean().default(true),
});

/** `/local what...` picks the mode; without a prefix the question goes to mix. */
export function modeAndQuestion(text: string): { mode: QueryMode; question: string } {
  const match = /^\s*\/(\w+)(?:\s+([\s\S]*))?$/.exec(text);
  const named = match?.[1]?.toLowerCase();
  if (match && named && (QUERY_MODES as readonly string[]).includes(named))
    return { mode: named as QueryMode, question: (match[2] ?? "").trim() };
  return { mode: "mix", question: text.trim() };
}

/**
 * The answer with its [n] citations kept and the cited passages (all, if none is cited) under
 * "Sources", then the community reports it cites as [C:id], by title.
 */
export function answerWithSources(result: QueryResult): string {
  const { references, communities } = citedSources(result);
  const lines = [
    ...references.map((r) => `[${r.n}] ${r.title} (${r.docId}, passage ${r.chunkId})`),
    ...communities.map(communitySourceLine),
  ];
  if (lines.length === 0) return result.answer;
  return `${result.answer.trimEnd()}\n\nSources:\n${lines.join("\n")}`;
}

export async function ollamaRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const digest = createHash("sha256").update(`kgrag-${ctx.version}`).digest("hex");
  const modifiedAt = new Date().toISOString();

  api.get(
    "/api/version",
    { schema: { tags: ["ollama"], summary: "Ollama-compatible version" } },
    async () => ({
      version: ctx.version,
    }),
  );

  api.get(
    "/api/tags",
    { schema: { tags: ["ollama"], summary: "Ollama-compatible model list" } },
    async () => ({
      models: [
        {
          name: OLLAMA_MODEL,
          model: OLLAMA_MODEL,
          modified_at: modifiedAt,
          size: 0,
          digest,
          details: {
            format: "kgrag",
            family: "kgrag",
            families: ["kgrag"],
            parameter_size: "",
            quantization_level: "",
          },
        },
      ],
    }),
  );

  api.post(
    "/api/chat",
    {
      schema: {
        tags: ["ollama"],
        summary:
          "Ollama-compatible chat: the last user message is the question (/naive ... /mix prefixes pick the mode)",
        body: ChatBodySchema,
      },
    },
    async (request, reply) => {
      const { messages, stream, model } = request.body;
      const lastUser = messages.map((m) => m.role).lastIndexOf("user");
      if (lastUser < 0) throw badRequest("messages hold no user message to answer");
      const { mode, question } = modeAndQuestion(messages[lastUser]?.content ?? "");
      if (!question) throw badRequest("The user message holds no question (after its /mode prefix, if any)");
      const history: HistoryMessage[] = messages
        .slice(0, lastUser)
        .filter(
          (m): m is { role: "user" | "assistant"; content: string } =>
            m.role === "user" || m.role === "assistant",
        );
      const queries = workspaceOf(request, ctx.registry).queries;
      const line = (content: string, done: boolean) => ({
        model,
        created_at: new Date().toISOString(),
        message: { role: "assistant", content },
        done,
      });
      if (!stream) {
        const result = await queries.run(question, { mode, history });
        return { ...line(answerWithSources(result), true), done_reason: "stop", ...usageFields(result) };
      }
      reply.hijack();
      reply.raw.writeHead(200, { ...headersOf(reply.getHeaders()), "content-type": "application/x-ndjson" });
      const write = (value: unknown) => {
        if (!reply.raw.destroyed) reply.raw.write(`${JSON.stringify(value)}\n`);
      };
      let streamed = false;
      try {
        const result = await queries.run(
          question,
          { mode, history },
          {
            onToken: (text) => {
              streamed = true;
              write(line(text, false));
            },
          },
        );
        const rest = streamed
          ? answerWithSources(result).slice(result.answer.length)
          : answerWithSources(result);
        if (rest) write(line(rest, false));
        write({ ...line("", true), done_reason: "stop", ...usageFields(result) });
      } catch (error) {
        write({ error: streamFailure(request, error, "query_failed").error.message });
      }
      reply.raw.end();
    },
  );
}

function usageFields(result: QueryResult) {
  return {
    total_duration: Math.round(result.timings.totalMs * 1e6),
    prompt_eval_count: result.usage.promptTokens,
    eval_count: result.usage.completionTokens,
  };
}

function headersOf(headers: Record<string, unknown>): Record<string, string | number | string[]> {
  return Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<
    string,
    string | number | string[]
  >;
}
