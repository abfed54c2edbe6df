import { loadConfig } from "../../config.js";
import { leafPaths, type Plain, setPath } from "../../config-file/layers.js";
import type { ConfigFlags } from "../commands/config.js";
import { formatTable, printJson } from "../output.js";

const SECRET_KEYS = ["apiKey", "password"];
const MASK = "***";

function isSecret(path: string): boolean {
  return SECRET_KEYS.includes(path.split(".").at(-1) ?? "");
}

/** `kgrag config`: every effective value with its source (default, file, env NAME, option). */
export async function configAction(opts: ConfigFlags): Promise<void> {
  if (opts.jsonSchema) {
    const { configJsonSchemaText } = await import("../../config-file/json-schema.js");
    process.stdout.write(configJsonSchemaText());
    return;
  }
  const loaded = loadConfig(process.env, opts.workspace ? { workspace: opts.workspace } : {});
  // Checks the prompt folder as a run would: a broken override is an error here too.
  const { usePromptOverrides, overriddenPrompts } = await import("../../llm/prompts.js");
  usePromptOverrides(loaded.config.prompts);
  const leaves = leafPaths(loaded.config as Plain).map(([path, value]): [string, unknown] => [
    path,
    isSecret(path) && value ? MASK : value,
  ]);
  if (opts.json) {
    const config: Plain = {};
    for (const [path, value] of leaves) setPath(config, path, value);
    printJson({ file: loaded.file, config, sources: loaded.sources, promptOverrides: overriddenPrompts() });
    return;
  }
  const file = loaded.file ?? "none (defaults, environment variables and options)";
  const prompts = overriddenPrompts();
  if (prompts.length) process.stdout.write(`prompt overrides: ${prompts.join(", ")}\n`);
  const rows = leaves.map(([path, value]) => [
    path,
    JSON.stringify(value),
    loaded.sources[path] ?? "default",
  ]);
  process.stdout.write(`config file: ${file}\n\n${formatTable(["key", "value", "source"], rows)}\n`);
}
