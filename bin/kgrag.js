#!/usr/bin/env node
// Runs the bundled CLI (built by `npm run build`, which `npm ci` runs through `prepare`).
import "../dist/cli/kgrag-cli.js";
