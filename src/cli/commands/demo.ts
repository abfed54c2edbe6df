import type { Command } from "commander";
import type { OpenKgrag } from "../open.js";

/** Indexes the bundled English and Chinese samples (if needed) and answers their questions in every mode. */
export function registerDemoCommand(program: Command, open: OpenKgrag): void {
  program
    .command("demo")
    .description("Index the bundled sample corpus and answer its questions in every mode")
    .option("-w, --workspace <dir>", "workspace folder", "./kgrag-demo")
    .option("--questions <n>", "how many sample questions to ask", "3")
    .action(async (opts: { workspace: string; questions: string }) =>
      (await import("../actions/demo.js")).demoAction(open, opts),
    );
}
