import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigError } from "../config-error.js";
import { isPlainObject, type Plain } from "./layers.js";

export const CONFIG_FILE_NAME = "kgrag.config.json";

/** The variable `--config` sets: a config file named explicitly. */
export const CONFIG_FILE_VARIABLE = "KGRAG_CONFIG";

type Env = Record<string, string | undefined>;

/**
 * The config file in force: the one named by --config (KGRAG_CONFIG), which must exist, else
 * kgrag.config.json in the workspace, else in the current folder; null when there is none.
 */
export function locateConfigFile(env: Env, workspace: string | undefined): string | null {
  const named = env[CONFIG_FILE_VARIABLE];
  if (named) {
    const path = resolve(named);
    if (!existsSync(path))
      throw new ConfigError(`Config file not found: ${path} (from --config or KGRAG_CONFIG)`);
    return path;
  }
  const candidates = [workspace && join(resolve(workspace), CONFIG_FILE_NAME), resolve(CONFIG_FILE_NAME)];
  return candidates.find((path): path is string => Boolean(path) && existsSync(path as string)) ?? null;
}

/** The file's settings, without the `$schema` key editors use for completion. */
export function readConfigFile(path: string): Plain {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`Config file ${path} is not valid JSON: ${reason}`);
  }
  if (!isPlainObject(parsed)) throw new ConfigError(`Config file ${path} must hold one JSON object`);
  return withoutEditorSchema(parsed);
}

/** Settings without the `$schema` key editors use for completion (a config file's, or its object passed as options). */
export function withoutEditorSchema<T extends object>(settings: T): Omit<T, "$schema"> {
  const { $schema: _editorSchema, ...rest } = settings as T & { $schema?: unknown };
  return rest;
}
