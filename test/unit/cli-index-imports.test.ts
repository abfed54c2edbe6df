import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../../src");
/**
 * Value imports and re-exports only (`import type`, `export type` and `{ type X }`-only lines load
 * nothing at run time).
 */
const STATIC_IMPORT = /^(?:import|export)\s+(?!type\s)(?:[^"';]*?\s+from\s+)?["']([^"']+)["']/gm;

/** Every package a module loads through its static imports, followed across src/. */
function packagesLoadedBy(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const [statement, specifier] of text.matchAll(STATIC_IMPORT)) {
      if (!specifier) continue;
      if (/^(?:import|export)\s*\{\s*(?:type\s+[\w$]+\s*,?\s*)+\}\s*from/.test(statement)) continue;
      if (!specifier.startsWith(".")) {
        packages.add(specifier);
        continue;
      }
      const target = join(dirname(file), specifier).replace(/\.js$/, ".ts");
      if (existsSync(target)) visit(target);
    }
  };
  visit(entry);
  return packages;
}

describe("kgrag index start-up", () => {
  it("does not load string-width, whose module builds an ICU segmenter (about 30 ms before the first request)", () => {
    const loaded = packagesLoadedBy(join(SRC, "cli/actions/index-command.ts"));
    // The walk does reach the engine's packages: it is a real import graph, not an empty one.
    expect(loaded.has("zod")).toBe(true);
    expect(loaded.has("string-width")).toBe(false);
  });

  it("does not load marked, which only the offline built-ins use (about 13 ms of set-up before the first request)", () => {
    const loaded = packagesLoadedBy(join(SRC, "cli/actions/index-command.ts"));
    expect(loaded.has("zod")).toBe(true);
    expect(loaded.has("marked")).toBe(false);
  });
});
