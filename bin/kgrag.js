#!/usr/bin/env node
// Runs the bundled CLI (built by `npm run build`, which `npm ci` runs through `prepare`).
import module from "node:module";

// Node 22.1 and later keep compiled ES modules on disk (in the temp folder) between runs;
// NODE_DISABLE_COMPILE_CACHE=1 turns it off. Node 20 has no such cache: there the call is absent.
// The commands themselves (dist/cli/kgrag-cli.cjs) are compiled through kgrag's own V8 code cache
// on every version (src/cli/code-cache.ts; KGRAG_NO_COMPILE_CACHE=1 turns that off).
module.enableCompileCache?.();
await import("../dist/cli/kgrag-cli.js");
