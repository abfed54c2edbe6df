import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { configFromEnv, type KgragConfig, type KgragConfigInput } from "../config.js";
import type { GraphStore } from "../storage/graph-store.js";
import { sqliteFile } from "../storage/sqlite/sqlite-store.js";
import { openStore } from "../workspace/store.js";
import { terminalProgress } from "./progress-bars.js";
import { UsageError } from "./usage-error.js";

/**
 * Only the store of a workspace, for commands that read what it holds and call no model (status):
 * neither the models nor the indexing and query pipelines are loaded. The prompt overrides are
 * checked all the same, as every command checks them.
 */
export async function openWorkspaceStore(opts: {
  workspace?: string;
}): Promise<{ config: KgragConfig; workspace: string; store: GraphStore }> {
  const config = refuseMissingWorkspace(opts.workspace);
  // Checks the prompt folder as every other command does: a missing or broken one is an error here too.
  const { usePromptOverrides } = await import("../llm/prompts.js");
  usePromptOverrides(config.prompts);
  const workspace = resolve(config.workspace);
  return { config, workspace, store: await openStore(config, workspace, terminalProgress()) };
}

/**
 * A read command pointed at the wrong folder should say so, not create an empty workspace there.
 * Returns the settings it read, so the caller need not read them again.
 */
export function refuseMissingWorkspace(
  workspace: string | undefined,
  extra: { env?: Record<string, string | undefined>; config?: KgragConfigInput; store?: GraphStore } = {},
): KgragConfig {
  const config = configFromEnv(extra.env ?? process.env, {
    ...extra.config,
    ...(workspace ? { workspace } : {}),
  });
  if (config.storage !== "sqlite" || extra.store) return config;
  const dir = resolve(config.workspace);
  if (existsSync(sqliteFile(dir))) return config;
  throw new UsageError(
    `No kgrag workspace at ${dir}. Index documents first (kgrag index <paths> --workspace ${config.workspace}), ` +
      "or point --workspace / KGRAG_WORKSPACE at an existing one.",
  );
}
