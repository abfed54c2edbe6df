import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pollAsOnALoadedMachine } from "../support/browser-waits.js";
import { launchChromium } from "../support/chromium.js";
import { type ServeChild, startServe } from "../support/serve-child.js";
import { ATLAS_DOCS, offlineWorkspace } from "../support/server.js";
import { buildWebApp } from "../support/web-build.js";

pollAsOnALoadedMachine();

/** The documents table's metadata editor, saving through PATCH /api/v1/documents/:id. */
describe("web app: editing a document's metadata", () => {
  let root: string;
  let server: ServeChild;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-web-metadata-"));
    await offlineWorkspace(join(root, "ws"), ATLAS_DOCS);
    await buildWebApp();
    server = await startServe([join(root, "ws")]);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  /** The document's metadata as the server has it. */
  async function storedMetadata(id: string): Promise<Record<string, unknown>> {
    const response = await fetch(`${server.url}/api/v1/documents?q=${encodeURIComponent(id)}`);
    const { items } = (await response.json()) as {
      items: { id: string; metadata: Record<string, unknown> }[];
    };
    return items.find((item) => item.id === id)?.metadata ?? {};
  }

  const row = () => page.locator("table.documents tbody tr", { hasText: "Lumen Robotics" }).first();
  const editor = () => page.getByRole("form", { name: "Metadata of Lumen Robotics" });
  const openEditor = async () => {
    await row().getByRole("button", { name: "Edit metadata of Lumen Robotics" }).click();
    await editor().waitFor();
  };

  it("edits a value and adds a key, saved on the server and shown in the row", async () => {
    await page.goto(server.url);
    await row().waitFor();
    expect(await row().textContent()).toContain("kind=company");
    await openEditor();
    await editor().getByLabel("Value of kind").fill("robotics company");
    await editor().getByRole("button", { name: "Add key" }).click();
    await editor().getByLabel("Key 2").fill("founded");
    await editor().getByLabel("Value of founded").fill("2015");
    await editor().getByRole("button", { name: "Save" }).click();
    await expect.poll(() => editor().count()).toBe(0);
    expect(await row().textContent()).toContain("kind=robotics company, founded=2015");
    // A new key that reads as a number is saved as one, for the query filters.
    expect(await storedMetadata("lumen")).toMatchObject({ kind: "robotics company", founded: 2015 });
  }, 60_000);

  it("removes a key", async () => {
    await openEditor();
    await editor().getByRole("button", { name: "Remove kind" }).click();
    await editor().getByRole("button", { name: "Save" }).click();
    await expect.poll(() => editor().count()).toBe(0);
    expect(await row().textContent()).not.toContain("kind=");
    expect(await row().textContent()).toContain("founded=2015");
    expect(await storedMetadata("lumen")).not.toHaveProperty("kind");
  }, 60_000);

  it("keeps a key another user set while the editor was open, after the table reloaded", async () => {
    await openEditor();
    // Someone else adds a key meanwhile; then the table reloads (Refresh) under the open editor.
    const other = await fetch(`${server.url}/api/v1/documents/lumen`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { owner: "ops" } }),
    });
    expect(other.status).toBe(200);
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect.poll(async () => (await row().textContent()) ?? "").toContain("owner=ops");
    await editor().getByLabel("Value of founded").fill("2016");
    await editor().getByRole("button", { name: "Save" }).click();
    await expect.poll(() => editor().count()).toBe(0);
    // Only what was edited is sent: the other user's key stays.
    expect(await storedMetadata("lumen")).toMatchObject({ founded: 2016, owner: "ops" });
  }, 60_000);

  it("keeps what was typed in the open editor when the table's rows move (a filter typed)", async () => {
    await openEditor();
    await editor().getByLabel("Value of founded").fill("2017");
    // The filtered table has Lumen Robotics in another place: its editor must stay as it was.
    await page.getByLabel("Filter documents").fill("Lumen");
    await expect.poll(() => page.locator("table.documents tbody tr[data-document-id]").count()).toBe(1);
    expect(await editor().getByLabel("Value of founded").inputValue()).toBe("2017");
    await editor().getByRole("button", { name: "Cancel" }).click();
    await page.getByLabel("Filter documents").fill("");
    await expect
      .poll(() => page.locator("table.documents tbody tr[data-document-id]").count())
      .toBeGreaterThan(1);
  }, 60_000);

  it("shows the server's refusal of one of kgrag's own keys in the editor, changing nothing", async () => {
    await openEditor();
    await editor().getByRole("button", { name: "Add key" }).click();
    const last = editor()
      .getByLabel(/^Key \d+$/)
      .last();
    await last.fill("source");
    await editor().getByLabel("Value of source").fill("elsewhere");
    await editor().getByRole("button", { name: "Save" }).click();
    const refusal = editor().getByRole("alert");
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain("kgrag's own key");
    expect(await storedMetadata("lumen")).not.toHaveProperty("source");
    // The editor stays open with what was typed; Cancel leaves the row as it was.
    expect(await editor().getByLabel("Value of source").inputValue()).toBe("elsewhere");
    await editor().getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => editor().count()).toBe(0);
    expect(await row().textContent()).not.toContain("source=");
  }, 60_000);
});
