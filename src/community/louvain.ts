import { createRequire } from "node:module";
import type louvainModule from "graphology-communities-louvain";

/**
 * graphology-communities-louvain is CommonJS (`module.exports = fn`) but its typings declare an ES
 * default export, so under NodeNext a default import is typed as the wrapper object. Loading it
 * through require gives the real function, typed with the library's own declaration.
 */
const require = createRequire(import.meta.url);
type Louvain = typeof louvainModule.default;
let loaded: Louvain | undefined;

/** Loaded on the first clustering (or by loadLouvain): an index run sends its first requests without it. */
export function loadLouvain(): Louvain {
  loaded ??= require("graphology-communities-louvain") as Louvain;
  return loaded;
}

export function louvain(...args: Parameters<Louvain>): ReturnType<Louvain> {
  return loadLouvain()(...args);
}
