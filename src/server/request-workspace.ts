import type { FastifyRequest } from "fastify";
import type { ServedWorkspace, WorkspaceRegistry } from "./workspaces.js";

/** The workspace a request is for: `X-Kgrag-Workspace` header, else `?workspace=`, else the first. */
export function workspaceOf(request: FastifyRequest, registry: WorkspaceRegistry): ServedWorkspace {
  const header = request.headers["x-kgrag-workspace"];
  const query = (request.query as Record<string, unknown> | undefined)?.workspace;
  const requested = typeof header === "string" ? header : typeof query === "string" ? query : undefined;
  return registry.pick(requested, request.apiKey);
}
