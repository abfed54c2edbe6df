import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The web app lives in web/ and builds to web/dist, which `kgrag serve` serves at `/`.
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "./",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  worker: { format: "es" },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    // Keep assets as files: the server sends them with a strict CSP (no inline data URLs needed).
    assetsInlineLimit: 0,
    // bench/web-size.ts walks the manifest to tell the first load from the lazy chunks.
    manifest: true,
  },
});
