/**
 * Web app size: the gzipped JavaScript a browser fetches on first load of `kgrag serve`'s app
 * (the entry chunk and its static imports, from Vite's manifest), and each lazy chunk (graph
 * explorer, Neo4j tools). Target: first-load JS at most 500 KB gzipped.
 * Run: npm run build && npx tsx bench/web-size.ts
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { z } from "zod";
import { formatTable } from "../src/cli/output.js";

const DIST = join(import.meta.dirname, "..", "web", "dist");
const MANIFEST = join(DIST, ".vite", "manifest.json");
const TARGET_KB = 500;

const ManifestSchema = z.record(
  z.string(),
  z.object({
    file: z.string(),
    isEntry: z.boolean().optional(),
    isDynamicEntry: z.boolean().optional(),
    imports: z.array(z.string()).optional(),
    css: z.array(z.string()).optional(),
  }),
);
type Manifest = z.infer<typeof ManifestSchema>;

function gzippedKb(file: string): { rawKb: number; gzipKb: number } {
  const bytes = readFileSync(join(DIST, file));
  return { rawKb: bytes.length / 1024, gzipKb: gzipSync(bytes).length / 1024 };
}

/** The chunk files a key loads before it runs: itself and its static imports, transitively. */
function staticClosure(manifest: Manifest, key: string, seen = new Set<string>()): Set<string> {
  if (seen.has(key)) return seen;
  seen.add(key);
  for (const imported of manifest[key]?.imports ?? []) staticClosure(manifest, imported, seen);
  return seen;
}

function sumKb(manifest: Manifest, keys: Iterable<string>): { rawKb: number; gzipKb: number } {
  let rawKb = 0;
  let gzipKb = 0;
  for (const key of keys) {
    const entry = manifest[key];
    if (!entry?.file.endsWith(".js")) continue;
    const size = gzippedKb(entry.file);
    rawKb += size.rawKb;
    gzipKb += size.gzipKb;
  }
  return { rawKb, gzipKb };
}

function main(): void {
  if (!existsSync(MANIFEST)) throw new Error(`No ${MANIFEST}: run \`npm run build\` first.`);
  const manifest = ManifestSchema.parse(JSON.parse(readFileSync(MANIFEST, "utf8")));
  const entries = Object.keys(manifest).filter((key) => manifest[key]?.isEntry);
  const firstLoad = new Set(entries.flatMap((key) => [...staticClosure(manifest, key)]));
  const first = sumKb(manifest, firstLoad);
  const rows = [
    ["first load (entry + static imports)", first.rawKb.toFixed(1), first.gzipKb.toFixed(1)],
    ...Object.keys(manifest)
      .filter((key) => manifest[key]?.isDynamicEntry)
      .map((key) => {
        const lazy = [...staticClosure(manifest, key)].filter((k) => !firstLoad.has(k));
        const size = sumKb(manifest, lazy);
        return [`lazy: ${key}`, size.rawKb.toFixed(1), size.gzipKb.toFixed(1)];
      }),
  ];
  const all = sumKb(manifest, Object.keys(manifest));
  rows.push(["every chunk (all views visited)", all.rawKb.toFixed(1), all.gzipKb.toFixed(1)]);
  console.log(formatTable(["JavaScript", "KB", "KB gzipped"], rows));
  const verdict = first.gzipKb <= TARGET_KB ? "within" : "OVER";
  console.log(`\nfirst-load JS ${first.gzipKb.toFixed(1)} KB gzipped: ${verdict} the ${TARGET_KB} KB target`);
}

main();
