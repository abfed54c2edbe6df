// Process entry of the CLI (bin/kgrag.js runs its compiled form; tests run it with tsx).
import { handleInterrupts } from "./interrupt.js";

// Before loading the commands (the slow part of start-up), so no Ctrl-C is missed.
handleInterrupts();
const { main } = await import("./main.js");
await main();
