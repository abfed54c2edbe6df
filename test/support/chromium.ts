import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium, installed by .ci/run when missing (playwright's own browser downloads are not used). */
export const CHROMIUM_PATH = process.env.KGRAG_CHROMIUM ?? "/usr/bin/chromium";

export function chromiumInstalled(): boolean {
  return existsSync(CHROMIUM_PATH);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}
