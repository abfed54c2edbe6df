import type { Command } from "commander";

export function registerPromptsCommand(program: Command): void {
  const prompts = program.command("prompts").description("The prompts kgrag sends, to adapt them");
  prompts
    .command("export")
    .description("Write the built-in prompts to DIR, as a starting point for the config's `prompts` folder")
    .argument("<dir>", "folder to write (created if missing)")
    .option("--force", "replace prompt files already in DIR")
    .action(async (dir: string, opts: { force?: boolean }) =>
      (await import("../actions/prompts.js")).exportPromptsAction(dir, opts),
    );
}
