import { describe, expect, it } from "vitest";
import { COMMAND_TABLE } from "../../src/cli/command-table.js";
import { buildProgram } from "../../src/cli/main.js";
import { runMain } from "../support/cli-in-process.js";

const argv = (...args: string[]) => ["node", "kgrag", ...args];

describe("top-level help from the command table", () => {
  it("is the help that every command's own definition gives", async () => {
    const fromTable = await buildProgram(argv("--help"));
    const fromDefinitions = await buildProgram(argv("--help"), undefined, { everyCommand: true });
    expect(fromTable.helpInformation()).toBe(fromDefinitions.helpInformation());
    expect(fromTable.commands.map((c) => c.name())).toEqual(COMMAND_TABLE.map((c) => c.name));
  });

  it("loads no command definition: the listed commands are stand-ins without options", async () => {
    const program = await buildProgram(argv("--help"));
    const query = program.commands.find((c) => c.name() === "query");
    expect(query?.options).toEqual([]);
    const real = await buildProgram(argv("query", "--help"));
    expect(real.commands.find((c) => c.name() === "query")?.options.length).toBeGreaterThan(0);
  });

  it("prints a command's own help for `help <command>`, with its options", async () => {
    const help = await runMain(["help", "query"]);
    expect(help.stdout).toContain("Usage: kgrag query [options] [question]");
    expect(help.stdout).toContain("--context-only");
    expect(help.code).toBe(0);
  });

  it("lists every command for `kgrag help` and suggests the name of a mistyped one", async () => {
    const help = await runMain(["help"]);
    for (const { name } of COMMAND_TABLE) expect(help.stdout).toMatch(new RegExp(`^  ${name}\\b`, "m"));
    const typo = await runMain(["qurey"]);
    expect(typo.stderr).toMatch(/unknown command 'qurey'/);
    expect(typo.stderr).toMatch(/Did you mean query\?/);
    expect(typo.code).toBe(2);
  });
});
