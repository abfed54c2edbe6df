import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { STRUCTURED_OUTPUT_OFFLINE, type StructuredOutput } from "../../query/answer/structured-output.js";
import { QUERY_MODES } from "../../query/options.js";
import type { ServerContext } from "../context.js";
import { badRequest, ollamaErrorBody } from "../errors.js";
import { clientGoneSignal } from "../queries/query-limits.js";
import { workspaceOf } from "../request-workspace.js";
import type { ServedWorkspace, WorkspaceRegistry } from "../workspaces.js";
import { type AskedTurns, askedTurns, modeAndQuestion } from "./chat-turns.js";
import { doClientTask, isClientTask } from "./client-tasks.js";
import {
  type AnswerFormat,
  chatFrame,
  generateFrame,
  KeepAliveSchema,
  loadReply,
  ollamaFormat,
  sendAnswer,
  sendNotice,
} from "./ollama-answer.js";

/** The default workspace's model (the first one a key may use, or the one X-Kgrag-Workspace names). */
export const OLLAMA_MODEL = "kgrag:latest";

/**
 * The Ollama version /api/version reports: clients refuse a server below their minimum (VS Code's
 * Copilot and Raycast 0.6.4, Continue 0.6.5) and Open WebUI reads the version as dotted integers,
 * so kgrag's own version (0.x, or a pre-release) is no use there. The API kgrag speaks is that of
 * this release (structured `format`, `capabilities` in /api/show, load/unload replies); kgrag's
 * version goes in `kgrag_version` beside it.
 */
export const OLLAMA_API_VERSION = "0.12.0";

/** The `expires_at` /api/ps gives a workspace: Ollama's for a model kept loaded (keep_alive -1). */
const LOADED_FOR_GOOD = "2318-01-01T00:00:00Z";

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

/**
 * Ollama's `format`: "json", or a JSON Schema the answer must follow; "" (what some clients send
 * by default) and null ask for text.
 */
const FormatSchema = z.union([z.literal(""), z.literal("json"), z.record(z.string(), z.unknown())]).nullish();

/** The JSON answer an Ollama `format` asks for, if any. */
export function ollamaStructuredOutput(format: z.infer<typeof FormatSchema>): StructuredOutput | undefined {
  if (!format) return undefined;
  return format === "json" ? {} : { schema: format };
}

// Other fields Ollama's clients send (options, tools, think, a message's images) are let through
// and not used: kgrag answers from its graph with its own models.
const ChatBodySchema = z.object({
  model: z.string().default(OLLAMA_MODEL),
  // None: a client loading or unloading the model (keep_alive 0).
  messages: z
    .array(
      z.object({
        role: z.enum(["system", "user", "assistant", "tool"]),
        // Ollama takes a message without content (an assistant's tool calls, a user's images).
        content: z.string().default(""),
      }),
    )
    .default([]),
  stream: z.boolean().default(true),
  keep_alive: KeepAliveSchema,
  format: FormatSchema,
});

/** Ollama's completion: the prompt is the question (a `system` prompt, `context` and `suffix` are not used). */
const GenerateBodySchema = z.object({
  model: z.string().default(OLLAMA_MODEL),
  // Empty: a client loading or unloading the model.
  prompt: z.string().default(""),
  stream: z.boolean().default(true),
  keep_alive: KeepAliveSchema,
  format: FormatSchema,
});

/** Ollama's clients name the model as `model`, older ones as `name`. */
const ShowBodySchema = z.object({ model: z.string().optional(), name: z.string().optional() });

const MODE_PREFIXES = QUERY_MODES.map((m) => `/${m}`);

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

export async function ollamaRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  // A scope of their own: here a body is JSON whatever its Content-Type (Ollama's documented
  // `curl -d '{...}'` sends a form's), while the REST routes keep refusing what is not JSON.
  await app.register(async (scope) => {
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
    {
      schema: {
        tags: ["ollama"],
        summary:
          "Ollama-compatible version: the Ollama API version kgrag follows (clients check a minimum), kgrag's own as kgrag_version",
      },
    },
    async () => ({ version: OLLAMA_API_VERSION, kgrag_version: ctx.version }),
  );

  /** The models this caller may use: kgrag:latest for its default workspace, kgrag-<id>:latest for the others. */
  const modelsOf = (request: FastifyRequest) => {
    const ids = ctx.registry.visible(request.apiKey);
    const [first, ...others] = ids;
    const named =
      first === undefined
        ? []
        : [[OLLAMA_MODEL, first] as const, ...others.map((id) => [workspaceModel(id, ids), id] as const)];
    return named.map(([name, id]) => ({
      name,
      model: name,
      modified_at: modifiedAt,
      size: 0,
      digest: digestOf(id),
      details,
    }));
  };

  api.get(
    "/api/tags",
    {
      schema: {
        tags: ["ollama"],
        summary:
          "Ollama-compatible model list: kgrag:latest (the default workspace), and kgrag-<id>:latest for each other workspace the key may use",
      },
    },
    async (request) => ({ models: modelsOf(request) }),
  );

  api.get(
    "/api/ps",
    {
      schema: {
        tags: ["ollama"],
        summary: "Ollama-compatible running models: every workspace of /api/tags, open while the server runs",
      },
    },
    // A workspace never unloads: it expires as an Ollama model kept loaded for good does.
    async (request) => ({
      models: modelsOf(request).map((m) => ({ ...m, expires_at: LOADED_FOR_GOOD, size_vram: 0 })),
    }),
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
      const { messages, stream, model, keep_alive, format } = request.body;
      const workspace = workspaceOfModel(model, request, ctx.registry);
      if (!workspace) return modelNotFound(reply, model);
      const frame = chatFrame(model);
      if (messages.length === 0) return loadReply(frame, keep_alive);
      const asked = { ...askedTurns(messages), output: ollamaStructuredOutput(format) };
      return answer(request, reply, workspace, asked, ollamaFormat(frame), stream);
    },
  );

  api.post(
    "/api/generate",
    {
      config: anyContentType,
      schema: {
        tags: ["ollama"],
        summary:
          "Ollama-compatible completion: the model names the workspace, the prompt is the question (/naive ... /mix prefixes pick the mode); an empty prompt loads or unloads",
        body: GenerateBodySchema,
      },
    },
    async (request, reply) => {
      const { prompt, stream, model, keep_alive, format } = request.body;
      const workspace = workspaceOfModel(model, request, ctx.registry);
      if (!workspace) return modelNotFound(reply, model);
      const frame = generateFrame(model);
      if (prompt.trim() === "") return loadReply(frame, keep_alive);
      const asked = { message: prompt, history: [], output: ollamaStructuredOutput(format) };
      return answer(request, reply, workspace, asked, ollamaFormat(frame), stream);
    },
  );
}

/** What a chat asks: the message, its history, and the JSON format its answer must take, if any. */
export interface ChatAsk extends AskedTurns {
  output?: StructuredOutput;
}

/**
 * Asks the message (its /mode prefix read) on the workspace, or answers a prefix naming no mode, or
 * does a client's errand (a title...) with the chat model alone. A JSON answer needs the chat
 * model: offline it is refused (400) before anything is asked.
 */
export async function answer(
  request: FastifyRequest,
  reply: FastifyReply,
  workspace: ServedWorkspace,
  asked: ChatAsk,
  format: AnswerFormat,
  stream: boolean,
) {
  const { message, history, output } = asked;
  const { services } = workspace.kgrag;
  if (isClientTask(message)) {
    const done = await doClientTask(services, message, clientGoneSignal(reply), output);
    if (done === undefined) throw badRequest(STRUCTURED_OUTPUT_OFFLINE, "structured_output_offline");
    return sendNotice(reply, format, done, stream);
  }
  if (output && !services.chat) throw badRequest(STRUCTURED_OUTPUT_OFFLINE, "structured_output_offline");
  const { mode, question, unknownPrefix } = modeAndQuestion(message);
  if (!question) throw badRequest("The message holds no question (after its /mode prefix, if any)");
  // Answered, not refused: a chat client shows an answer, and may hide an error's body.
  // Asked for JSON, a notice in words would break the client's parsing: refused with it instead.
  if (unknownPrefix && output) throw badRequest(unknownPrefixAnswer(unknownPrefix));
  if (unknownPrefix) return sendNotice(reply, format, unknownPrefixAnswer(unknownPrefix), stream);
  return sendAnswer(request, reply, workspace, { question, mode, history, output }, format, stream);
}
