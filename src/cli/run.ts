// Process entry of the CLI from sources (tests run it with tsx); the bundled CLI starts from
// bundle-entry.ts, both through start.ts.
import { startCli } from "./start.js";

await startCli();
