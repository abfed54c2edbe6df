import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { ConfigError } from "../config-error.js";
import { ScopeError } from "../query/graph/scope.js";
import { packagePath } from "../util/paths.js";
import type { OpenKgrag } from "./open.js";
import { USAGE_EXIT_CODE, UsageError } from "./usage-error.js";

type Register = (program: Command, open: OpenKgrag) => Promise<void>;

/**
 * Each command's definition is imported only when it is named (all of them for help). Definitions
 * are light: a command's handler, and the library behind it, load when the command runs.
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
  entities: async (p, o) => (await import("./commands/entities.js")).registerEntitiesCommand(p, o),
};

/** The CLI's workspace opener, loaded by the first command that opens a workspace: it pulls in the library. */
const openWorkspaceLazily: OpenKgrag = async (opts) => (await import("./open.js")).cliOpener()(opts);

/** The program with the commands `argv` needs: the named one, or all of them for help. */
export async function buildProgram(
  argv: string[] = process.argv,
  open: OpenKgrag = openWorkspaceLazily,
): Promise<Command> {
  const { version } = JSON.parse(readFileSync(packagePath("package.json"), "utf8")) as { version: string };
  const program = new Command("kgrag")
    .version(version)
    .description(
      "Knowledge-graph RAG: index documents into a graph, then query it in five modes with citations",
    );
  const named = argv.slice(2).find((arg) => !arg.startsWith("-"));
  const wanted = named && named in COMMANDS ? [named] : Object.keys(COMMANDS);
  for (const name of wanted) await COMMANDS[name]?.(program, open);
  reportUsageErrorsBriefly(program);
  return program;
}

/**
 * Commander's own usage errors (unknown option, missing argument, bad choice...) look like ours:
 * one line, a pointer to the command's help instead of the whole help text, and (in `main`) exit
 * code 2. Walked over the tree after registration: commander copies these settings only into
 * subcommands created after they are set.
 */
export function reportUsageErrorsBriefly(command: Command): void {
  command
    .exitOverride()
    .showHelpAfterError(`Run '${commandPath(command)} --help' for usage.`)
    .configureOutput({
      outputError: (text, write) => write(`kgrag: ${text.replace(/^error: /, "")}`),
    });
  for (const sub of command.commands) reportUsageErrorsBriefly(sub);
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** 0 for help and version, 2 for a wrong invocation or input, 1 for a failure at run time. */
function exitCodeOf(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : USAGE_EXIT_CODE;
  const badInput = error instanceof UsageError || error instanceof ScopeError || error instanceof ConfigError;
  return badInput ? USAGE_EXIT_CODE : 1;
}

export async function main(argv: string[] = process.argv): Promise<void> {
  try {
    await (await buildProgram(argv)).parseAsync(argv);
  } catch (error) {
    process.exitCode = exitCodeOf(error);
    // Commander has already printed its own errors.
    if (error instanceof CommanderError) return;
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`kgrag: ${message}\n`);
    if (process.env.KGRAG_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  }
}
