import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { packagePath } from "../util/paths.js";
import { registerAskCommand } from "./commands/ask.js";
import { registerChatCommand } from "./commands/chat.js";
import { registerCommunitiesCommand } from "./commands/communities.js";
import { registerCypherCommand } from "./commands/cypher.js";
import { addCypherSubcommands } from "./commands/cypher-subcommands.js";
import { registerDeleteCommand } from "./commands/delete.js";
import { registerDemoCommand } from "./commands/demo.js";
import { registerEvalCommand } from "./commands/eval.js";
import { registerExportCommand } from "./commands/export.js";
import { registerIndexCommand } from "./commands/index-command.js";
import { registerMigrateCommand } from "./commands/migrate.js";
import { registerQueryCommand } from "./commands/query.js";
import { registerStatusCommand } from "./commands/status.js";
import { cliOpener } from "./open.js";
import { UsageError } from "./output.js";

export function buildProgram(): Command {
  const { version } = JSON.parse(readFileSync(packagePath("package.json"), "utf8")) as { version: string };
  const program = new Command("kgrag")
    .version(version)
    .description(
      "Knowledge-graph RAG: index documents into a graph, then query it in five modes with citations",
    )
    .showHelpAfterError();
  const open = cliOpener();
  registerIndexCommand(program, open);
  registerStatusCommand(program, open);
  registerQueryCommand(program, open);
  registerDeleteCommand(program, open);
  registerCommunitiesCommand(program, open);
  registerEvalCommand(program, open);
  registerDemoCommand(program, open);
  addCypherSubcommands(registerCypherCommand(program, open));
  registerAskCommand(program, open);
  registerChatCommand(program, open);
  registerExportCommand(program, open);
  registerMigrateCommand(program, open);
  return program;
}

export async function main(argv: string[] = process.argv): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode;
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`kgrag: ${message}\n`);
    if (process.env.KGRAG_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  }
}
