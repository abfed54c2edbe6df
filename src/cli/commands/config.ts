import type { Command } from "commander";

export interface ConfigFlags {
  workspace?: string;
  json?: boolean;
  jsonSchema?: boolean;
}

export function registerConfigCommand(program: Command): void {
  program
    .command("config")
    .description("Print the effective configuration, where each value comes from, secrets masked")
    .option("-w, --workspace <dir>", "workspace folder (its kgrag.config.json is read)")
    .option("--json", "print {file, config, sources} as JSON")
    .option("--json-schema", "print the JSON Schema of kgrag.config.json")
    .action(async (opts: ConfigFlags) => (await import("../actions/config.js")).configAction(opts));
}
