// Process entry of the CLI (bin/kgrag.js runs its compiled form; tests run it with tsx).
import { main } from "./main.js";

await main();
