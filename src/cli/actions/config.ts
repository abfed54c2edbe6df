import { type KgragConfig, loadConfig } from "../../config.js";
import { leafPaths, type Plain, setPath } from "../../config-file/layers.js";
import { STAGES } from "../../llm/chat-model.js";
import { stageSettings } from "../../llm/stage-models.js";
import type { ConfigFlags } from "../commands/config.js";
import { formatTable } from "../output.js";
import { printJson } from "../print-json.js";

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
  process.stdout.write(stageTable(loaded.config));
}

/** The model each request stage ends up with, once `stages` and `llm` are combined. */
function stageTable(config: KgragConfig): string {
  if (!config.llm) return "\nNo LLM configured: every stage runs its offline built-in.\n";
  const rows = STAGES.map((stage) => {
    const s = stageSettings(config, stage);
    const price = s?.price ? `${s.price.inputPerMillion} / ${s.price.outputPerMillion}` : "";
    const limits = [
      s?.requestsPerMinute && `${s.requestsPerMinute} rpm`,
      s?.tokensPerMinute && `${s.tokensPerMinute} tpm`,
    ];
    return [stage, s?.model ?? "", s?.baseURL ?? "(default)", limits.filter(Boolean).join(", "), price];
  });
  const headers = ["stage", "model", "base URL", "rate limits", "price in/out per M"];
  return `\nModels by stage:\n${formatTable(headers, rows)}\n`;
}
