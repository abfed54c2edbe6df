import { createRequire } from "node:module";
import type louvainModule from "graphology-communities-louvain";

/**
 * graphology-communities-louvain is CommonJS (`module.exports = fn`) but its typings declare an ES
 * default export, so under NodeNext a default import is typed as the wrapper object. Loading it
 * through require gives the real function, typed with the library's own declaration.
 */
const require = createRequire(import.meta.url);
export const louvain: typeof louvainModule.default = require("graphology-communities-louvain");
