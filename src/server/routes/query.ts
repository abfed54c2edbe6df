import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { READABLE_DESCRIPTIONS } from "../api-notes.js";
import type { ServerContext } from "../context.js";
import { streamFailure } from "../errors.js";
import { QueryBodySchema } from "../queries/query-body.js";
import { clientGoneSignal } from "../queries/query-limits.js";
import { workspaceOf } from "../request-workspace.js";
import { type EventStream, openEventStream } from "../sse.js";

export async function queryRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.post(
    "/api/v1/query",
    {
      schema: {
        tags: ["query"],
        summary: "Answer a question (the JSON of `kgrag query --json`)",
        description: READABLE_DESCRIPTIONS,
        body: QueryBodySchema,
      },
    },
    async (request, reply) => {
      const { question, timeoutMs, ...options } = request.body;
      const call = { clientGone: clientGoneSignal(reply), timeoutMs };
      const { json, hit } = await workspaceOf(request, ctx.registry).queries.json(question, options, call);
      return reply
        .header("x-kgrag-cache", hit ? "hit" : "miss")
        .type("application/json; charset=utf-8")
        .send(json);
    },
  );

  api.post(
    "/api/v1/query/stream",
    {
      schema: {
        tags: ["query"],
        summary: "Answer a question as server-sent events: context, token..., done (or error)",
        description: READABLE_DESCRIPTIONS,
        body: QueryBodySchema,
      },
    },
    async (request, reply) => {
      const { question, timeoutMs, ...options } = request.body;
      const queries = workspaceOf(request, ctx.registry).queries;
      const call = { clientGone: clientGoneSignal(reply), timeoutMs };
      // Opened with the first event: a query refused before it retrieves anything (an unknown
      // document or metadata value in its scope) answers with its status, as /query does.
      let stream: EventStream | undefined;
      const events = () => {
        stream ??= openEventStream(reply);
        return stream;
      };
      try {
        // The library hands every answer to onToken, an offline one as a single token.
        const result = await queries.run(
          question,
          options,
          {
            onContext: (context) => events().send("context", { context }),
            onToken: (text) => events().send("token", { text }),
          },
          call,
        );
        events().send("done", result);
      } catch (error) {
        if (!stream) throw error;
        stream.send("error", streamFailure(request, error, "query_failed"));
      }
      events().end();
    },
  );
}
