import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { HistoryMessage } from "../../query/options.js";
import { QUERY_MODES, type QueryMode } from "../../query/options.js";
import type { QueryResult } from "../../query/result.js";
import { citedSources, communitySourceLine, pagesPart } from "../../query/result-text.js";
import type { ServerContext } from "../context.js";
import { badRequest, handleOllamaError, ollamaErrorBody, streamFailure } from "../errors.js";
import { clientGoneSignal } from "../queries/query-limits.js";
import { workspaceOf } from "../request-workspace.js";
import type { ServedWorkspace, WorkspaceRegistry } from "../workspaces.js";

/** The default workspace's model (the first one a key may use, or the one X-Kgrag-Workspace names). */
export const OLLAMA_MODEL = "kgrag:latest";

/**
 * The model of a workspace by its id, listed beside the default one when a server has several:
 * `kgrag-<id>` in lower case (as Ollama names models), unless another of the server's workspace
 * ids (`ids`) differs from this one only by case; then the id keeps its case, so each workspace has
 * a name of its own (`kgrag-Docs` and `kgrag-docs`).
 */
export function workspaceModel(id: string, ids: readonly string[]): string {
  const lower = id.toLowerCase();
  const clash = ids.some((other) => other !== id && other.toLowerCase() === lower);
  return `kgrag-${clash ? id : lower}:latest`;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** The body is read as JSON whatever its Content-Type says (Ollama's clients send none, or a form's). */
    anyContentType?: boolean;
  }
}

const ChatBodySchema = z.object({
  model: z.string().default(OLLAMA_MODEL),
  messages: z
    .array(z.object({ role: z.enum(["system", "user", "assistant", "tool"]), content: z.string() }))
    .min(1, "messages must hold at least one message"),
  stream: z.boolean().default(true),
});

/** Ollama's clients name the model as `model`, older ones as `name`. */
const ShowBodySchema = z.object({ model: z.string().optional(), name: z.string().optional() });

const MODE_PREFIXES = QUERY_MODES.map((m) => `/${m}`);

/**
 * `/local what...` picks the mode; without a prefix the question goes to mix. A `/word` that names
 * no mode is `unknownPrefix` (a path such as `/etc/hosts ...` is no prefix: the word ends at a space).
 */
export function modeAndQuestion(text: string): { mode: QueryMode; question: string; unknownPrefix?: string } {
  const match = /^\s*\/(\w+)(?:\s+([\s\S]*))?$/.exec(text);
  const named = match?.[1]?.toLowerCase();
  if (match && named && (QUERY_MODES as readonly string[]).includes(named))
    return { mode: named as QueryMode, question: (match[2] ?? "").trim() };
  if (match?.[1]) return { mode: "mix", question: text.trim(), unknownPrefix: `/${match[1]}` };
  return { mode: "mix", question: text.trim() };
}

/** What an Ollama client shows for a message that starts with a prefix naming no mode. */
export function unknownPrefixAnswer(prefix: string): string {
  return (
    `kgrag: "${prefix}" is not a query mode, so nothing was asked. Start the message with ` +
    `${MODE_PREFIXES.join(", ")} to pick the mode, or ask without a prefix (mix mode).`
  );
}

/**
 * The workspace an Ollama model name stands for, for this caller: `kgrag` (`:latest`, the tag
 * optional) is the request's workspace as the REST routes choose it, `kgrag-<id>` the workspace
 * `<id>`: the one with exactly that id, else the one whose id differs only by case, when just one
 * does; undefined for any other name, for a name two ids fit as well, and for a workspace the key
 * may not use.
 */
export function workspaceOfModel(
  model: string,
  request: FastifyRequest,
  registry: WorkspaceRegistry,
): ServedWorkspace | undefined {
  const name = model.trim().replace(/:latest$/i, "");
  if (name.toLowerCase() === "kgrag") return workspaceOf(request, registry);
  if (!name.toLowerCase().startsWith("kgrag-")) return undefined;
  const id = idOfModel(name.slice("kgrag-".length), registry.visible(request.apiKey));
  return id === undefined ? undefined : registry.pick(id, request.apiKey);
}

/** The id among `ids` that `named` (a model name's id part) names; see workspaceOfModel. */
export function idOfModel(named: string, ids: readonly string[]): string | undefined {
  if (ids.includes(named)) return named;
  const alike = ids.filter((id) => id.toLowerCase() === named.toLowerCase());
  return alike.length === 1 ? alike[0] : undefined;
}

function modelNotFound(reply: FastifyReply, model: string) {
  return reply.status(404).send(ollamaErrorBody(`model '${model}' not found`));
}

/**
 * Whether a path is the Ollama-compatible API's (`/api/...` outside the REST API's `/api/v1`),
 * whose errors answer in Ollama's shape, a route kgrag does not serve included.
 */
export function isOllamaPath(path: string): boolean {
  return path.startsWith("/api/") && path !== "/api/v1" && !path.startsWith("/api/v1/");
}

/**
 * The answer with its [n] citations kept and the cited passages (all, if none is cited) under
 * "Sources", then the community reports it cites as [C:id], by title.
 */
export function answerWithSources(result: QueryResult): string {
  const { references, communities } = citedSources(result);
  const lines = [
    ...references.map((r) => `[${r.n}] ${r.title} (${r.docId}${pagesPart(r)}, passage ${r.chunkId})`),
    ...communities.map(communitySourceLine),
  ];
  if (lines.length === 0) return result.answer;
  return `${result.answer.trimEnd()}\n\nSources:\n${lines.join("\n")}`;
}

export async function ollamaRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  // A scope of their own: here a body is JSON whatever its Content-Type (Ollama's documented
  // `curl -d '{...}'` sends a form's), while the REST routes keep refusing what is not JSON.
  await app.register(async (scope) => {
    // Ollama's clients read `error` as a string: every error of these routes, a refused body and a
    // missing key included, answers `{error: "<message>"}`; the REST routes keep `{error: {code, message}}`.
    scope.setErrorHandler(handleOllamaError);
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => {
      const text = String(body);
      if (text.trim() === "") {
        done(badRequest("The request has no body; send a JSON object"), undefined);
        return;
      }
      try {
        done(null, JSON.parse(text));
      } catch (error) {
        done(badRequest(`The body is not JSON: ${(error as Error).message}`, "bad_json"), undefined);
      }
    });
    await routes(scope, ctx);
  });
}

async function routes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const modifiedAt = new Date().toISOString();
  const digestOf = (id: string) => createHash("sha256").update(`kgrag-${ctx.version}-${id}`).digest("hex");
  const details = {
    parent_model: "",
    format: "kgrag",
    family: "kgrag",
    families: ["kgrag"],
    parameter_size: "",
    quantization_level: "",
  };
  const anyContentType = { anyContentType: true };

  api.get(
    "/api/version",
    { schema: { tags: ["ollama"], summary: "Ollama-compatible version" } },
    async () => ({
      version: ctx.version,
    }),
  );

  api.get(
    "/api/tags",
    {
      schema: {
        tags: ["ollama"],
        summary:
          "Ollama-compatible model list: kgrag:latest (the default workspace), and kgrag-<id>:latest for each other workspace the key may use",
      },
    },
    async (request) => {
      const ids = ctx.registry.visible(request.apiKey);
      const [first, ...others] = ids;
      const models =
        first === undefined
          ? []
          : [[OLLAMA_MODEL, first] as const, ...others.map((id) => [workspaceModel(id, ids), id] as const)];
      return {
        models: models.map(([name, id]) => ({
          name,
          model: name,
          modified_at: modifiedAt,
          size: 0,
          digest: digestOf(id),
          details,
        })),
      };
    },
  );

  api.post(
    "/api/show",
    {
      config: anyContentType,
      schema: {
        tags: ["ollama"],
        summary: "Ollama-compatible model details (404 {error} for a model not served to this key)",
        body: ShowBodySchema,
      },
    },
    async (request, reply) => {
      const model = request.body.model ?? request.body.name;
      if (!model?.trim()) return reply.status(400).send(ollamaErrorBody("model is required"));
      const workspace = workspaceOfModel(model, request, ctx.registry);
      if (!workspace) return modelNotFound(reply, model);
      const { services } = workspace.kgrag;
      return {
        license: "",
        modelfile:
          `# kgrag: knowledge-graph RAG over the workspace "${workspace.id}"; answers cite their sources.\n` +
          `# Start a message with ${MODE_PREFIXES.join(", ")} to pick the query mode (mix by default).\n`,
        parameters: "",
        template: "{{ .Prompt }}",
        details,
        model_info: {
          "general.architecture": "kgrag",
          "general.basename": workspaceModel(workspace.id, ctx.registry.visible(request.apiKey)).replace(
            /:latest$/,
            "",
          ),
          "kgrag.workspace": workspace.id,
          "kgrag.storage": services.store.kind,
          "kgrag.chat_model": services.chat ? (services.config.llm?.model ?? "custom") : "offline",
          "kgrag.embedding_model": services.embedder.model,
          "kgrag.modes": QUERY_MODES.join(","),
        },
        capabilities: ["completion"],
        modified_at: modifiedAt,
      };
    },
  );

  api.post(
    "/api/chat",
    {
      config: anyContentType,
      schema: {
        tags: ["ollama"],
        summary:
          "Ollama-compatible chat: the model names the workspace (see /api/tags), the last user message is the question (/naive ... /mix prefixes pick the mode)",
        body: ChatBodySchema,
      },
    },
    async (request, reply) => {
      const { messages, stream, model } = request.body;
      const workspace = workspaceOfModel(model, request, ctx.registry);
      if (!workspace) return modelNotFound(reply, model);
      const lastUser = messages.map((m) => m.role).lastIndexOf("user");
      if (lastUser < 0) throw badRequest("messages hold no user message to answer");
      const { mode, question, unknownPrefix } = modeAndQuestion(messages[lastUser]?.content ?? "");
      if (!question) throw badRequest("The user message holds no question (after its /mode prefix, if any)");
      const line = (content: string, done: boolean) => ({
        model,
        created_at: new Date().toISOString(),
        message: { role: "assistant", content },
        done,
      });
      if (unknownPrefix) {
        // Answered, not refused: an Ollama client shows an answer, and may hide an error's body.
        const notice = { ...line(unknownPrefixAnswer(unknownPrefix), true), done_reason: "stop" };
        if (!stream) return notice;
        return reply
          .type("application/x-ndjson")
          .send(
            `${JSON.stringify(line(notice.message.content, false))}\n${JSON.stringify({ ...line("", true), done_reason: "stop" })}\n`,
          );
      }
      const history: HistoryMessage[] = messages
        .slice(0, lastUser)
        .filter(
          (m): m is { role: "user" | "assistant"; content: string } =>
            m.role === "user" || m.role === "assistant",
        );
      const queries = workspace.queries;
      const call = { clientGone: clientGoneSignal(reply) };
      if (!stream) {
        const result = await queries.run(question, { mode, history }, {}, call);
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
          call,
        );
        const rest = streamed
          ? answerWithSources(result).slice(result.answer.length)
          : answerWithSources(result);
        if (rest) write(line(rest, false));
        write({ ...line("", true), done_reason: "stop", ...usageFields(result) });
      } catch (error) {
        write(ollamaErrorBody(streamFailure(request, error, "query_failed").error.message));
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
