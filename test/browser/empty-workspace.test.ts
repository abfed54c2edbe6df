import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOTHING_INDEXED } from "../../src/query/query-engine.js";
import { pollAsOnALoadedMachine } from "../support/browser-waits.js";
import { launchChromium } from "../support/chromium.js";
import { type ServeChild, startServe } from "../support/serve-child.js";
import { buildWebApp } from "../support/web-build.js";

pollAsOnALoadedMachine();

/** What a new user sees first: `kgrag serve` on a workspace it has just created, nothing indexed. */
describe("web app on a workspace with nothing indexed", () => {
  let root: string;
  let server: ServeChild;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-web-empty-"));
    await buildWebApp();
    server = await startServe([join(root, "ws")]);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("says in the graph view that nothing is indexed yet, linking the Documents view", async () => {
    await page.goto(`${server.url}/#/graph`);
    const empty = page.getByText("No entity yet: this workspace has nothing indexed.");
    await empty.waitFor();
    await page.getByRole("link", { name: "Documents", exact: true }).last().click();
    await page.getByText(/Drop files here/).waitFor();
    expect(new URL(page.url()).hash).toMatch(/^#\/documents/);
  });

  it("answers a question with the warning that nothing is indexed, not how to build community reports", async () => {
    await page.goto(`${server.url}/#/ask`);
    await page.getByLabel("Question").fill("Who founded Lumen Robotics?");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await page.getByText(NOTHING_INDEXED).waitFor();
    expect(await page.getByText("community reports").count()).toBe(0);
  });
});
