import type { ServerConfig } from "./server-config.js";
import type { WorkspaceRegistry } from "./workspaces.js";

/** What every route module gets: the settings, the served workspaces and the package version. */
export interface ServerContext {
  config: ServerConfig;
  registry: WorkspaceRegistry;
  version: string;
}
