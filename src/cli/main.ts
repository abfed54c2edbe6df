import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Command, CommanderError } from "commander";
import { ConfigError } from "../config-error.js";
import { CONFIG_FILE_NAME, CONFIG_FILE_VARIABLE } from "../config-file/find-config.js";
import { OptionsError } from "../options-error.js";
import { ScopeError } from "../query/graph/scope.js";
import { packagePath } from "../util/paths.js";
import { addCommandSummaries } from "./command-table.js";
import type { OpenKgrag, OpenOptions, OpenServices } from "./open.js";
import { USAGE_EXIT_CODE, UsageError } from "./usage-error.js";

type Register = (program: Command, open: OpenKgrag) => Promise<void>;

/**
 * Each command's definition is imported only when it is named; the top-level help comes from the
 * command table (command-table.ts) and loads none. Definitions are light: a command's handler, and
 * the library behind it, load when the command runs.
 */
const COMMANDS: Record<string, Register> = {
  index: async (p, o) => (await import("./commands/index-command.js")).registerIndexCommand(p, o),
  status: async (p) => (await import("./commands/status.js")).registerStatusCommand(p),
  query: async (p) => (await import("./commands/query.js")).registerQueryCommand(p, openServicesLazily),
  delete: async (p, o) => (await import("./commands/delete.js")).registerDeleteCommand(p, o),
  docs: async (p, o) => (await import("./commands/docs.js")).registerDocsCommand(p, o),
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
  config: async (p) => (await import("./commands/config.js")).registerConfigCommand(p),
  prompts: async (p) => (await import("./commands/prompts.js")).registerPromptsCommand(p),
  serve: async (p) => (await import("./commands/serve.js")).registerServeCommand(p),
  mcp: async (p, o) => (await import("./commands/mcp.js")).registerMcpCommand(p, o),
  entities: async (p, o) => (await import("./commands/entities.js")).registerEntitiesCommand(p, o),
  backup: async (p) => (await import("./commands/backup.js")).registerBackupCommand(p),
  restore: async (p) => (await import("./commands/backup.js")).registerRestoreCommand(p),
};

/** The CLI's workspace opener, loaded by the first command that opens a workspace: it pulls in the library. */
const openWorkspaceLazily: OpenKgrag = async (opts) => (await import("./open.js")).cliOpener()(opts);

/** A query needs the workspace's services only, not the indexing pipelines the library facade loads. */
async function openServicesLazily(opts: OpenOptions): ReturnType<OpenServices> {
  return (await import("./open-services.js")).openCliServices(opts);
}

/**
 * The program with the commands `argv` needs: the named one (also for `help <command>`), or the
 * command table's stand-ins for the top-level help. `everyCommand` registers every definition.
 */
export async function buildProgram(
  argv: string[] = process.argv,
  open: OpenKgrag = openWorkspaceLazily,
  { everyCommand = false }: { everyCommand?: boolean } = {},
): Promise<Command> {
  const { version } = JSON.parse(readFileSync(packagePath("package.json"), "utf8")) as { version: string };
  const program = new Command("kgrag")
    .version(version)
    .description(
      "Knowledge-graph RAG: index documents into a graph, then query it in five modes with citations",
    );
  program.option(
    "-c, --config <file>",
    `config file (default: ${CONFIG_FILE_NAME} in the workspace or here)`,
  );
  // Every command reads settings through the environment; the flag names the file there.
  program.hook("preAction", () => {
    const file = program.opts<{ config?: string }>().config;
    if (file) process.env[CONFIG_FILE_VARIABLE] = resolve(file);
  });
  const named = commandName(argv);
  const wanted = everyCommand ? Object.keys(COMMANDS) : named && named in COMMANDS ? [named] : [];
  for (const name of wanted) await COMMANDS[name]?.(program, open);
  if (wanted.length === 0) addCommandSummaries(program);
  reportUsageErrorsBriefly(program);
  return program;
}

/**
 * The command `argv` names: the first word that is neither a flag nor the value of --config, or
 * the word after it when that word is `help` (`kgrag help query`).
 */
function commandName(argv: string[]): string | undefined {
  const args = argv.slice(2);
  const words = args.filter(
    (arg, i) => !arg.startsWith("-") && args[i - 1] !== "--config" && args[i - 1] !== "-c",
  );
  return words[0] === "help" ? words[1] : words[0];
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
  const badInput =
    error instanceof UsageError ||
    error instanceof ScopeError ||
    error instanceof ConfigError ||
    error instanceof OptionsError;
  return badInput ? USAGE_EXIT_CODE : 1;
}

export async function main(argv: string[] = process.argv): Promise<void> {
  const configBefore = process.env[CONFIG_FILE_VARIABLE];
  try {
    await (await buildProgram(argv)).parseAsync(argv);
  } catch (error) {
    process.exitCode = exitCodeOf(error);
    // Commander has already printed its own errors.
    if (error instanceof CommanderError) return;
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`kgrag: ${message}\n`);
    if (process.env.KGRAG_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  } finally {
    // In-process callers (tests, embedders of the CLI) get their environment back as it was.
    if (configBefore === undefined) delete process.env[CONFIG_FILE_VARIABLE];
    else process.env[CONFIG_FILE_VARIABLE] = configBefore;
  }
}
