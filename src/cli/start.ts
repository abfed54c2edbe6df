// The CLI's start, shared by the ES module entry (run.ts) and the CommonJS bundle that the bundled
// CLI loads through V8's code cache (src/cli/compile-cache.ts), which cannot await at its top level.
import { handleInterrupts } from "./interrupt.js";

export async function startCli(): Promise<void> {
  // Before loading the commands (the slow part of start-up), so no Ctrl-C is missed.
  handleInterrupts();
  const { main } = await import("./main.js");
  await main();
}
