import { join } from "node:path";
import { build } from "vite";
import { REPO_ROOT } from "./cli-child.js";

export const WEB_ROOT = join(REPO_ROOT, "web");

/** Builds web/ into web/dist, so the browser tests see the current sources, not a stale build. */
export async function buildWebApp(): Promise<void> {
  await build({ root: WEB_ROOT, configFile: join(WEB_ROOT, "vite.config.ts"), logLevel: "warn" });
}
