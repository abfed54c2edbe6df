import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { findKey, presentedKey } from "../auth.js";
import type { ServerContext } from "../context.js";

/** /health (open; only `{ok}` to callers without a key when keys are set) and the workspace list. */
export async function metaRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get(
    "/health",
    { schema: { tags: ["meta"], summary: "Storage reachable, models, version" } },
    async (request) => {
      const keys = ctx.config.apiKeys;
      const key = findKey(keys, presentedKey(request));
      // A key limited to some workspaces hears about those only.
      const visible = new Set(ctx.registry.visible(key));
      const workspaces = await Promise.all(
        ctx.registry.all
          .filter((w) => visible.has(w.id))
          .map(async (w) => ({
            id: w.id,
            storage: w.kgrag.services.store.kind,
            ok: await reachable(() => w.kgrag.services.store.counts()),
          })),
      );
      const ok = workspaces.every((w) => w.ok);
      if (keys.length > 0 && !key) return { ok };
      const first = ctx.registry.all.find((w) => visible.has(w.id))?.kgrag;
      return {
        ok,
        version: ctx.version,
        workspaces,
        models: {
          chat: first?.services.chat ? (first.services.config.llm?.model ?? "custom") : "offline",
          embedding: first?.services.embedder.model ?? "none",
        },
      };
    },
  );
  api.get(
    "/api/v1/workspaces",
    { schema: { tags: ["meta"], summary: "Workspaces this key may use" } },
    async (request) => {
      const visible = new Set(ctx.registry.visible(request.apiKey));
      return {
        workspaces: ctx.registry.all
          .filter((w) => visible.has(w.id))
          // By id only: the server's folders are not its clients' business.
          .map((w) => ({
            id: w.id,
            storage: w.kgrag.services.store.kind,
            neo4j: w.kgrag.services.store.kind === "neo4j",
          })),
      };
    },
  );
}

async function reachable(counts: () => Promise<unknown>): Promise<boolean> {
  try {
    await counts();
    return true;
  } catch {
    return false;
  }
}
