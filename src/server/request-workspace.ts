import type { FastifyRequest } from "fastify";
import { badRequest } from "./errors.js";
import type { ServedWorkspace, WorkspaceRegistry } from "./workspaces.js";

/**
 * The workspace a request is for: `X-Kgrag-Workspace` header, else `?workspace=`, else the first.
 * A request whose header and address name different workspaces is refused: answering either
 * would give one workspace's data to a request (a link, a cached address) about the other.
 */
export function workspaceOf(request: FastifyRequest, registry: WorkspaceRegistry): ServedWorkspace {
  const header = request.headers["x-kgrag-workspace"];
  const query = (request.query as Record<string, unknown> | undefined)?.workspace;
  const fromHeader = typeof header === "string" ? header : undefined;
  const fromQuery = typeof query === "string" ? query : undefined;
  if (fromHeader !== undefined && fromQuery !== undefined && fromHeader !== fromQuery)
    throw badRequest(
      `The X-Kgrag-Workspace header names workspace "${fromHeader}" and ?workspace= names "${fromQuery}": name one`,
      "workspace_conflict",
    );
  return registry.pick(fromHeader ?? fromQuery, request.apiKey);
}
