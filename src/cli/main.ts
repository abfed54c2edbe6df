import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { packagePath } from "../util/paths.js";
import { cliOpener, type OpenKgrag } from "./open.js";
import { UsageError } from "./output.js";

type Register = (program: Command, open: OpenKgrag) => Promise<void>;

/**
 * Each command module is imported only when its command runs (or for help): the Neo4j driver,
 * the Cypher front end and the loaders are heavy, and `kgrag status` should not pay for them.
 */
const COMMANDS: Record<string, Register> = {
  index: async (p, o) => (await import("./commands/index-command.js")).registerIndexCommand(p, o),
  status: async (p, o) => (await import("./commands/status.js")).registerStatusCommand(p, o),
  query: async (p, o) => (await import("./commands/query.js")).registerQueryCommand(p, o),
  delete: async (p, o) => (await import("./commands/delete.js")).registerDeleteCommand(p, o),
  communities: async (p, o) => (await import("./commands/communities.js")).registerCommunitiesCommand(p, o),
  eval: async (p, o) => (await import("./commands/eval.js")).registerEvalCommand(p, o),
  demo: async (p, o) => (await import("./commands/demo.js")).registerDemoCommand(p, o),
  cypher: async (p, o) => {
    const { registerCypherCommand } = await import("./commands/cypher.js");
    const { addCypherSubcommands } = await import("./commands/cypher-subcommands.js");
    addCypherSubcommands(registerCypherCommand(p, o), o);
  },
  ask: async (p, o) => (await import("./commands/ask.js")).registerAskCommand(p, o),
  chat: async (p, o) => (await import("./commands/chat.js")).registerChatCommand(p, o),
  export: async (p, o) => (await import("./commands/export.js")).registerExportCommand(p, o),
  migrate: async (p, o) => (await import("./commands/migrate.js")).registerMigrateCommand(p, o),
};

/** The program with the commands `argv` needs: the named one, or all of them for help. */
export async function buildProgram(
  argv: string[] = process.argv,
  open: OpenKgrag = cliOpener(),
): Promise<Command> {
  const { version } = JSON.parse(readFileSync(packagePath("package.json"), "utf8")) as { version: string };
  const program = new Command("kgrag")
    .version(version)
    .description(
      "Knowledge-graph RAG: index documents into a graph, then query it in five modes with citations",
    )
    .showHelpAfterError();
  const named = argv.slice(2).find((arg) => !arg.startsWith("-"));
  const wanted = named && named in COMMANDS ? [named] : Object.keys(COMMANDS);
  for (const name of wanted) await COMMANDS[name]?.(program, open);
  return program;
}

export async function main(argv: string[] = process.argv): Promise<void> {
  try {
    await (await buildProgram(argv)).parseAsync(argv);
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
