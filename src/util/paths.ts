import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let cachedRoot: string | undefined;

/**
 * The kgrag package folder (holding prompts/, cypher/ and samples/), found by walking up from this
 * file, so it works from src/ under tsx or vitest and from dist/ once built or installed.
 */
export function packageRoot(): string {
  if (cachedRoot) return cachedRoot;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string };
      if (pkg.name === "kgrag") {
        cachedRoot = dir;
        return dir;
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error("Cannot find the kgrag package folder (package.json named kgrag)");
    dir = parent;
  }
}

export function packagePath(...parts: string[]): string {
  return join(packageRoot(), ...parts);
}
