import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../support/chromium.js";
import { type ServeChild, startServe } from "../support/serve-child.js";
import { buildWebApp } from "../support/web-build.js";

/** What POST /api/v1/cypher answers for a typo: Neo4j's message, the query quoted on one line. */
const SYNTAX_ERROR =
  "Invalid input 'LIMT': expected an expression, 'FOREACH', ',', 'AS', 'ORDER BY', 'CALL', 'CREATE', " +
  "'LOAD CSV', 'DELETE', 'DETACH', 'FINISH', 'INSERT', 'LIMIT', 'MATCH', 'MERGE', 'NODETACH', 'OFFSET', " +
  "'OPTIONAL', 'REMOVE', 'RETURN', 'SET', 'SKIP', 'UNION', 'UNWIND', 'USE', 'WITH' or <EOF> " +
  `(line 1, column 32 (offset: 31))\n"MATCH (e:Entity) RETURN e.name LIMT 2"\n${" ".repeat(32)}^`;

/** A chat turn whose first query Neo4j failed at run time, as POST .../messages answers it. */
const CORRECTED_TURN = {
  route: "cypher",
  cypher: "MATCH (e:Entity {workspace: $workspace}) RETURN count(e) AS entities",
  validation: { ok: true, messages: [] },
  executed: true,
  rows: [{ entities: 3 }],
  attempts: 2,
  failedAttempts: [
    {
      cypher: "MATCH (e:Entity {workspace: $workspace}) RETURN count(e) / 0 AS entities",
      stage: "run",
      errors: ["The query failed when it ran: / by zero"],
    },
  ],
  answer: "There are 3 entities.",
};

/**
 * The Neo4j view's Cypher console, its server answers stubbed (the workspace said to be a Neo4j
 * one, the query refused as Neo4j refuses it): no live database is needed to lay out an error.
 */
describe("Neo4j view's Cypher console in Chromium", () => {
  let root: string;
  let server: ServeChild;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "kgrag-web-neo4j-"));
    await buildWebApp();
    server = await startServe([join(root, "ws")]);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
    await page.route(
      (url) => url.pathname === "/api/v1/workspaces",
      (route) => route.fulfill({ json: { workspaces: [{ id: "ws", storage: "neo4j", neo4j: true }] } }),
    );
    await page.route(
      (url) => url.pathname === "/api/v1/cypher",
      (route) =>
        route.fulfill({ status: 400, json: { error: { code: "cypher_error", message: SYNTAX_ERROR } } }),
    );
    await page.route(
      (url) => url.pathname === "/api/v1/chat/sessions",
      (route) => route.fulfill({ json: { id: "s1" } }),
    );
    await page.route(
      (url) => url.pathname === "/api/v1/chat/sessions/s1/messages",
      (route) => route.fulfill({ json: CORRECTED_TURN }),
    );
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("shows a long Neo4j error inside the console without widening the page", async () => {
    await page.goto(`${server.url}/#/neo4j?workspace=ws`);
    await page.getByLabel("Cypher query").fill("MATCH (e:Entity) RETURN e.name LIMT 2");
    await page.getByRole("button", { name: "Run" }).click();
    const error = page.locator(".cypher-console pre.error");
    await error.waitFor();
    expect(await error.textContent()).toContain("Invalid input 'LIMT'");
    // A string, not a function: the test tsconfig has no DOM lib.
    const pageWidth = Number(await page.evaluate("document.documentElement.scrollWidth"));
    const widths = { page: pageWidth, viewport: page.viewportSize()?.width ?? 0 };
    expect(widths.page).toBeLessThanOrEqual(widths.viewport);
    // The chat's input stays inside the viewport, not pushed off to the right.
    const input = await page.getByLabel("Chat message").boundingBox();
    expect((input?.x ?? 0) + (input?.width ?? 0)).toBeLessThanOrEqual(widths.viewport);
  }, 60_000);

  it("shows that a chat answer was corrected, the failed query collapsed under it", async () => {
    await page.goto(`${server.url}/#/neo4j?workspace=ws`);
    await page.getByLabel("Chat message").fill("How many entities?");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByText("There are 3 entities.").waitFor();
    const corrections = page.locator(".chat-answer details.corrections");
    expect(await corrections.locator("summary").textContent()).toBe("corrected after 2 attempts");
    const failed = corrections.locator("li");
    expect(await failed.isVisible()).toBe(false);
    await corrections.locator("summary").click();
    expect(await failed.textContent()).toContain("count(e) / 0");
    expect(await failed.textContent()).toContain("The query failed when it ran: / by zero");
  }, 60_000);
});
