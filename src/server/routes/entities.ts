import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { StrengthSchema } from "../../merge/strength.js";
import type { EntityCuration } from "../../resolve/curation.js";
import type { EntityRecord, RelationshipRecord } from "../../types.js";
import { READABLE_DESCRIPTIONS } from "../api-notes.js";
import type { ServerContext } from "../context.js";
import { editorOf } from "../editor.js";
import { queryNumber } from "../query-number.js";
import { workspaceOf } from "../request-workspace.js";

const workspace = z.string().optional();
const entityName = (field: string) => z.string().trim().min(1, `${field} must not be empty`);
/** Who made the edit, as recorded in the rules and the history (default: the API key's number, or "api"). */
const by = z.string().trim().min(1).max(100).optional();

const CreateBodySchema = z
  .object({
    name: entityName("name"),
    type: entityName("type").optional(),
    description: z.string().trim().min(1, "description must not be empty"),
    by,
  })
  .strict();

const MergeBodySchema = z
  .object({
    names: z.array(entityName("a name")).min(2, "names must hold two or more entities"),
    into: entityName("into").optional(),
    name: entityName("name").optional(),
    by,
  })
  .strict();

const RenameBodySchema = z.object({ entity: entityName("entity"), name: entityName("name"), by }).strict();

const EditBodySchema = z
  .object({
    entity: entityName("entity"),
    type: entityName("type").optional(),
    description: z.string().optional(),
    by,
  })
  .strict()
  .refine((body) => body.type !== undefined || body.description !== undefined, {
    message: "give type or description (or both)",
  });

const SplitBodySchema = z.object({ entity: entityName("entity"), alias: entityName("alias"), by }).strict();

const LinkBodySchema = z
  .object({
    source: entityName("source"),
    target: entityName("target"),
    description: z.string().trim().min(1, "description must not be empty"),
    keywords: z.array(z.string().trim().min(1)).optional(),
    strength: StrengthSchema.optional(),
    by,
  })
  .strict();

/** An entity as the curation routes return it (kg.entities gives descriptions readable already). */
function entityView(entity: EntityRecord) {
  return {
    key: entity.key,
    name: entity.name,
    type: entity.type,
    description: entity.description,
    aliases: entity.aliases ?? [],
    passages: entity.sourceChunkIds.length,
  };
}

function relationshipView(relationship: RelationshipRecord, names: Map<string, string>) {
  return {
    key: relationship.key,
    source: names.get(relationship.sourceKey) ?? relationship.sourceKey,
    target: names.get(relationship.targetKey) ?? relationship.targetKey,
    sourceKey: relationship.sourceKey,
    targetKey: relationship.targetKey,
    description: relationship.description,
    keywords: relationship.keywords,
    weight: relationship.weight,
  };
}

/**
 * Hand curation of the graph over HTTP: the library's `kg.entities` (kept as rules that survive
 * re-indexing), run between jobs in the server process. A job running in the workspace answers
 * 409 `workspace_busy`; bad input changes nothing (see errors.ts for the codes).
 */
export async function entityRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  const editor = (request: FastifyRequest, given: string | undefined): string =>
    editorOf(request, ctx.config.apiKeys, given);

  /** Runs one edit as the workspace's only writer; the graph views are renewed after it. */
  const curate = async <T>(request: FastifyRequest, work: (curation: EntityCuration) => Promise<T>) => {
    const served = workspaceOf(request, ctx.registry);
    try {
      return await served.jobs.exclusive(() => work(served.kgrag.entities));
    } finally {
      served.graph.forget();
    }
  };

  const reads = (request: FastifyRequest) => workspaceOf(request, ctx.registry).kgrag.entities;

  api.get(
    "/api/v1/entities/duplicates",
    {
      schema: {
        tags: ["entities"],
        summary: "Pairs that might be one entity but were left apart, with their evidence",
        querystring: z.object({ limit: queryNumber(1, 2000, 200), workspace }),
      },
    },
    async (request) => {
      const pairs = await reads(request).duplicates();
      return { items: pairs.slice(0, request.query.limit), total: pairs.length };
    },
  );

  api.get(
    "/api/v1/entities/history",
    {
      schema: {
        tags: ["entities"],
        summary: "What changed an entity (or, without name, the workspace), oldest first",
        description: READABLE_DESCRIPTIONS,
        querystring: z.object({ name: entityName("name").optional(), workspace }),
      },
    },
    async (request) => ({
      items: await reads(request).history(request.query.name),
    }),
  );

  api.post(
    "/api/v1/entities",
    {
      schema: {
        tags: ["entities"],
        summary:
          "Make an entity by hand (kept through re-indexing and deletes; later mentions of its name fold into it)",
        description: `${READABLE_DESCRIPTIONS} A name that is another entity's name or alias answers 409 name_taken.`,
        body: CreateBodySchema,
        querystring: z.object({ workspace }),
      },
    },
    async (request, reply) => {
      const { name, type, description } = request.body;
      const by = editor(request, request.body.by);
      const input = { name, description, ...(type ? { type } : {}) };
      const entity = await curate(request, (kg) => kg.create(input, { by }));
      return reply.status(201).send({ entity: entityView(entity) });
    },
  );

  api.post(
    "/api/v1/entities/merge",
    {
      schema: {
        tags: ["entities"],
        summary: "Merge entities into one (`into` survives, default the best-connected; `name` renames it)",
        description: READABLE_DESCRIPTIONS,
        body: MergeBodySchema,
        querystring: z.object({ workspace }),
      },
    },
    async (request) => {
      const { names, into, name } = request.body;
      const options = {
        by: editor(request, request.body.by),
        ...(into ? { into } : {}),
        ...(name ? { name } : {}),
      };
      const entity = await curate(request, (kg) => kg.merge(names, options));
      return { entity: entityView(entity) };
    },
  );

  api.post(
    "/api/v1/entities/rename",
    {
      schema: {
        tags: ["entities"],
        summary: "Give an entity a new display name (the old one stays an alias)",
        description: READABLE_DESCRIPTIONS,
        body: RenameBodySchema,
        querystring: z.object({ workspace }),
      },
    },
    async (request) => {
      const { entity, name } = request.body;
      const by = editor(request, request.body.by);
      return { entity: entityView(await curate(request, (kg) => kg.rename(entity, name, { by }))) };
    },
  );

  api.post(
    "/api/v1/entities/edit",
    {
      schema: {
        tags: ["entities"],
        summary: "Set an entity's type and/or description",
        description: READABLE_DESCRIPTIONS,
        body: EditBodySchema,
        querystring: z.object({ workspace }),
      },
    },
    async (request) => {
      const { entity, type, description } = request.body;
      const fields = { ...(type ? { type } : {}), ...(description !== undefined ? { description } : {}) };
      const by = editor(request, request.body.by);
      return { entity: entityView(await curate(request, (kg) => kg.edit(entity, fields, { by }))) };
    },
  );

  api.post(
    "/api/v1/entities/split",
    {
      schema: {
        tags: ["entities"],
        summary: "Take an alias back out of an entity; returns the entity it becomes again",
        description: READABLE_DESCRIPTIONS,
        body: SplitBodySchema,
        querystring: z.object({ workspace }),
      },
    },
    async (request) => {
      const { entity, alias } = request.body;
      const by = editor(request, request.body.by);
      return { entity: entityView(await curate(request, (kg) => kg.split(entity, alias, { by }))) };
    },
  );

  api.delete(
    "/api/v1/entities",
    {
      schema: {
        tags: ["entities"],
        summary: "Delete an entity and its relationships (kept deleted through re-indexing)",
        querystring: z.object({ name: entityName("name"), by, workspace }),
      },
    },
    async (request) => {
      const { name } = request.query;
      const by = editor(request, request.query.by);
      const deleted = await curate(request, async (kg) => {
        const entity = await kg.get(name);
        await kg.deleteEntity(entity.key, { by });
        return entity;
      });
      return { deleted: { key: deleted.key, name: deleted.name } };
    },
  );

  api.post(
    "/api/v1/relationships",
    {
      schema: {
        tags: ["entities"],
        summary: "Add a relationship by hand, with a description (kept through re-indexing)",
        description: READABLE_DESCRIPTIONS,
        body: LinkBodySchema,
        querystring: z.object({ workspace }),
      },
    },
    async (request, reply) => {
      const { source, target, description, keywords, strength } = request.body;
      const by = editor(request, request.body.by);
      const input = {
        description,
        ...(keywords ? { keywords } : {}),
        ...(strength !== undefined ? { strength } : {}),
      };
      const { relationship, names } = await curate(request, async (kg) => {
        const relationship = await kg.addRelationship(source, target, input, { by });
        const ends = [await kg.get(relationship.sourceKey), await kg.get(relationship.targetKey)];
        return { relationship, names: new Map(ends.map((e) => [e.key, e.name])) };
      });
      return reply.status(201).send({ relationship: relationshipView(relationship, names) });
    },
  );

  api.delete(
    "/api/v1/relationships",
    {
      schema: {
        tags: ["entities"],
        summary: "Delete the relationship between two entities (kept deleted through re-indexing)",
        querystring: z.object({ source: entityName("source"), target: entityName("target"), by, workspace }),
      },
    },
    async (request) => {
      const { source, target } = request.query;
      const by = editor(request, request.query.by);
      await curate(request, (kg) => kg.deleteRelationship(source, target, { by }));
      return { deleted: { source, target } };
    },
  );
}
