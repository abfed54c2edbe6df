/**
 * Graph explorer smoothness: frames per second while the user pans and zooms 2,000 nodes (and 5,000
 * edges) in headless Chromium, while ForceAtlas2 runs and after it has settled. The built app
 * (web/dist) is served by a bare static server and the graph API is answered with a synthetic
 * neighbourhood, so the figure is the browser side alone. Headless Chromium renders WebGL on the CPU
 * (SwiftShader), so a desktop GPU does better. Needs `npm run build` and /usr/bin/chromium.
 * Run: npx tsx bench/web-graph-fps.ts [--nodes 2000] [--edges 5000]
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { extname, join, normalize } from "node:path";
import { parseArgs } from "node:util";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../test/support/chromium.js";

const DIST = join(import.meta.dirname, "..", "web", "dist");
const TYPES: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" };

const { values } = parseArgs({
  options: { nodes: { type: "string", default: "2000" }, edges: { type: "string", default: "5000" } },
});
const NODES = Number(values.nodes);
const EDGES = Number(values.edges);

/** A random graph with a hub (node 0, the one the explorer opens) and a few communities. */
function syntheticNeighbourhood() {
  const nodes = Array.from({ length: NODES }, (_, i) => ({
    id: `n${i}`,
    name: `Entity ${i}`,
    type: ["person", "organization", "location", "concept"][i % 4],
    degree: i === 0 ? NODES : 1 + (i % 17),
    community: `c${i % 12}`,
  }));
  const edges = Array.from({ length: EDGES }, (_, i) => {
    const source = i < NODES - 1 ? 0 : Math.floor(Math.random() * NODES);
    const target = i < NODES - 1 ? i + 1 : Math.floor(Math.random() * NODES);
    return { id: `e${i}`, source: `n${source}`, target: `n${target}`, description: "", weight: 1 };
  });
  return { nodes, edges, truncated: false };
}

function serveDist(): Promise<{ url: string; close(): void }> {
  const server = createServer((request, response) => {
    const path = normalize(new URL(request.url ?? "/", "http://x").pathname).replace(/^(\.\.[/\\])+/, "");
    const file = join(DIST, path === "/" ? "index.html" : path);
    try {
      const body = readFileSync(file);
      response.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, close: () => server.close() });
    }),
  );
}

/** Answers the API calls the graph view makes, so no kgrag server is needed. */
async function stubApi(page: Page): Promise<void> {
  const hood = syntheticNeighbourhood();
  const json = (body: unknown) => ({
    status: 200,
    contentType: "application/json",
    body: JSON.stringify(body),
  });
  await page.route("**/api/v1/**", (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === "/api/v1/workspaces")
      return route.fulfill(json({ workspaces: [{ id: "bench", storage: "sqlite" }] }));
    if (path.endsWith("/entities/popular"))
      return route.fulfill(json({ items: [{ ...hood.nodes[0], description: "" }] }));
    if (path.endsWith("/neighbourhood")) return route.fulfill(json(hood));
    if (path.endsWith("/entity")) {
      return route.fulfill(
        json({ entity: { ...hood.nodes[0], description: "hub" }, relationships: [], sources: [] }),
      );
    }
    return route.fulfill(json({ items: [] }));
  });
}

/** Frames drawn during `ms` of continuous wheel zooming and dragging over the canvas. */
async function framesPerSecond(page: Page, ms: number): Promise<number> {
  const box = await page.locator("[data-testid=graph-canvas]").boundingBox();
  if (!box) throw new Error("no graph canvas");
  // A string, so neither DOM types nor the transpiler's helpers leak into the page.
  await page.evaluate(`
    globalThis.frames = 0;
    globalThis.counting = true;
    (function tick() {
      if (!globalThis.counting) return;
      globalThis.frames += 1;
      requestAnimationFrame(tick);
    })();
  `);
  const start = Date.now();
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  for (let i = 0; Date.now() - start < ms; i++) {
    await page.mouse.move(cx, cy);
    await page.mouse.wheel(0, i % 2 === 0 ? -120 : 120);
    await page.mouse.down();
    await page.mouse.move(cx + 80 * Math.sin(i), cy + 80 * Math.cos(i), { steps: 4 });
    await page.mouse.up();
  }
  const elapsed = Date.now() - start;
  const frames = Number(await page.evaluate("globalThis.counting = false, globalThis.frames"));
  return (frames * 1000) / elapsed;
}

/**
 * The frame rate the harness itself allows: the same wheel and drag input over an empty page of the
 * same size. Headless Chromium's frame clock and the input round trips cap what any page can reach.
 */
async function harnessCeiling(browser: Browser): Promise<number> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    await page.setContent('<div data-testid="graph-canvas" style="width:1400px;height:900px"></div>');
    return await framesPerSecond(page, 3000);
  } finally {
    await page.close();
  }
}

async function main(): Promise<void> {
  const site = await serveDist();
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await stubApi(page);
    const opened = Date.now();
    await page.goto(`${site.url}/#/graph`);
    await page.locator(".graph-canvas").waitFor({ timeout: 60_000 });
    const appMs = Date.now() - opened;
    await page.getByText(`${NODES} nodes`).waitFor({ timeout: 60_000 });
    const shownMs = Date.now() - opened;
    const duringLayout = await framesPerSecond(page, 2000);
    await page.locator('[data-testid=graph-canvas][data-layout="settled"]').waitFor({ timeout: 60_000 });
    const settled = await framesPerSecond(page, 3000);
    const ceiling = await harnessCeiling(browser);
    console.log(
      `${NODES} nodes, ${EDGES} edges: graph view up ${appMs} ms after opening, nodes on screen at ${shownMs} ms; ` +
        `${duringLayout.toFixed(1)} fps while ForceAtlas2 runs, ${settled.toFixed(1)} fps after, ` +
        "panning and zooming (headless Chromium, WebGL on the CPU); " +
        `the same input on an empty page: ${ceiling.toFixed(1)} fps; load average ${loadavg()[0]?.toFixed(1)}`,
    );
  } finally {
    await browser.close();
    site.close();
  }
}

await main();
