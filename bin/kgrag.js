#!/usr/bin/env node
// Runs the bundled CLI (built by `npm run build`, which `npm ci` runs through `prepare`).
import module from "node:module";

// Node 22.1 and later keep the bundle's compiled code on disk (in the temp folder) between runs, so
// a command does not compile the same modules again; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
// Node 20 has no such cache: there the call is absent and start-up compiles as before.
module.enableCompileCache?.();
await import("../dist/cli/kgrag-cli.js");
