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
  // Editors on Windows may save UTF-8 with a byte order mark, which JSON.parse refuses.
  const text = readFileSync(path, "utf8").replace(/^\uFEFF/, "");
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`Config file ${path} is not valid JSON: ${reason}${lineAndColumn(text, reason)}`);
  }
  if (!isPlainObject(parsed)) throw new ConfigError(`Config file ${path} must hold one JSON object`);
  return withoutEditorSchema(parsed);
}

/**
 * " (line 3, column 5)" for a parse error that gives only a position (Node 20: "... in JSON at
 * position 41"), so a hand-edited file's mistake can be found; "" when the reason has none.
 */
function lineAndColumn(text: string, reason: string): string {
  const position = /at position (\d+)/.exec(reason)?.[1];
  if (position === undefined || /\bline\b/.test(reason)) return "";
  const before = text.slice(0, Number(position)).split("\n");
  return ` (line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1})`;
}

/** Settings without the `$schema` key editors use for completion (a config file's, or its object passed as options). */
export function withoutEditorSchema<T extends object>(settings: T): Omit<T, "$schema"> {
  const { $schema: _editorSchema, ...rest } = settings as T & { $schema?: unknown };
  return rest;
}
