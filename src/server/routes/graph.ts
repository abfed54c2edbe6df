import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { READABLE_DESCRIPTIONS } from "../api-notes.js";
import type { ServerContext } from "../context.js";
import { notFound } from "../errors.js";
import { CommunityDetailSchema } from "../graph/community-detail.js";
import { queryNumber } from "../query-number.js";
import { workspaceOf } from "../request-workspace.js";

const workspace = z.string().optional();
const name = z.string().trim().min(1, "name must not be empty");
/** Community ids follow membership: a community merged away by a later index run is gone. */
const COMMUNITY_GONE_HINT =
  "no current community has this id (a re-index may have merged it into another); " +
  "GET /api/v1/graph/communities lists the current ones";

export async function graphRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { maxNodes, maxEdges, maxDepth } = ctx.config.graph;
  const limit = (fallback: number) => queryNumber(1, maxNodes, fallback);
  const reads = (request: Parameters<typeof workspaceOf>[0]) => workspaceOf(request, ctx.registry).graph;

  api.get(
    "/api/v1/graph/entities",
    {
      schema: {
        tags: ["graph"],
        summary: "Entities by full text (q) or name prefix; the most connected without either",
        description: READABLE_DESCRIPTIONS,
        // Two searches in one request are refused rather than one of them silently dropped.
        querystring: z
          .object({
            q: z.string().optional(),
            prefix: z.string().optional(),
            limit: limit(20),
            workspace,
          })
          .refine((query) => !(query.q?.trim() && query.prefix?.trim()), {
            path: ["prefix"],
            message: "give q (full text) or prefix (start of a name), not both",
          }),
      },
    },
    async (request) => ({ items: await reads(request).search(request.query) }),
  );

  api.get(
    "/api/v1/graph/entities/popular",
    {
      schema: {
        tags: ["graph"],
        summary: "The most connected entities",
        description: READABLE_DESCRIPTIONS,
        querystring: z.object({ limit: limit(50), workspace }),
      },
    },
    async (request) => ({ items: await reads(request).popular(request.query.limit) }),
  );

  api.get(
    "/api/v1/graph/entity",
    {
      schema: {
        tags: ["graph"],
        summary: "An entity with its relationships and source passages",
        description: READABLE_DESCRIPTIONS,
        querystring: z.object({ name, workspace }),
      },
    },
    async (request) => {
      const found = await reads(request).entity(request.query.name);
      if (!found) throw notFound(`Entity ${JSON.stringify(request.query.name)}`);
      return found;
    },
  );

  api.get(
    "/api/v1/graph/neighbourhood",
    {
      schema: {
        tags: ["graph"],
        summary: "An entity's neighbourhood to a depth, with caps on nodes and edges",
        description: READABLE_DESCRIPTIONS,
        querystring: z.object({
          name,
          depth: queryNumber(0, maxDepth, 1),
          maxNodes: limit(200),
          maxEdges: queryNumber(0, maxEdges, 1000),
          workspace,
        }),
      },
    },
    async (request, reply) => {
      const q = request.query;
      const found = await reads(request).neighbourhoodJson(q.name, q.depth, q.maxNodes, q.maxEdges);
      if (!found) throw notFound(`Entity ${JSON.stringify(q.name)}`);
      // Already JSON: sent as it is, not serialised again.
      return reply
        .header("x-kgrag-cache", found.hit ? "hit" : "miss")
        .type("application/json; charset=utf-8")
        .send(found.json);
    },
  );

  api.get(
    "/api/v1/graph/relationship",
    {
      schema: {
        tags: ["graph"],
        summary: "A relationship with its source passages",
        description: READABLE_DESCRIPTIONS,
        querystring: z.object({ source: name, target: name, workspace }),
      },
    },
    async (request) => {
      const found = await reads(request).relationship(request.query.source, request.query.target);
      if (!found) throw notFound(`Relationship ${request.query.source} — ${request.query.target}`);
      return found;
    },
  );

  api.get(
    "/api/v1/graph/communities",
    { schema: { tags: ["graph"], summary: "The community hierarchy" } },
    async (request) => ({ items: await reads(request).communities() }),
  );

  api.get(
    "/api/v1/graph/communities/:id",
    {
      schema: {
        tags: ["graph"],
        summary: "A community's report, its members and what the report's citation ids stand for",
        params: z.object({ id: z.string().min(1) }),
        response: { 200: CommunityDetailSchema },
      },
    },
    async (request) => {
      const found = await reads(request).community(request.params.id);
      if (!found) throw notFound(`Community ${request.params.id}`, COMMUNITY_GONE_HINT);
      return found;
    },
  );

  api.get(
    "/api/v1/passages/:chunkId",
    {
      schema: {
        tags: ["graph"],
        summary: "One passage (chunk) by id",
        params: z.object({ chunkId: z.string().min(1) }),
      },
    },
    async (request) => {
      const found = await reads(request).passage(request.params.chunkId);
      if (!found) throw notFound(`Passage ${request.params.chunkId}`);
      return found;
    },
  );
}
