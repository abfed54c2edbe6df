import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { offlineWorkspace, type Running, removeAll, startServer, tempDir } from "../support/server.js";

const dirs: string[] = [];
let running: Running;
let web: string;

beforeAll(async () => {
  const root = await tempDir("web-files");
  dirs.push(root);
  web = join(root, "dist");
  mkdirSync(join(web, "assets"), { recursive: true });
  writeFileSync(
    join(web, "index.html"),
    '<!doctype html><script type="module" src="./assets/old.js"></script>',
  );
  writeFileSync(join(web, "assets", "old.js"), "export const built = 1;");
  await offlineWorkspace(join(root, "ws"), []);
  running = await startServer({ workspaces: [join(root, "ws")], server: { webDir: web } });
}, 60_000);

afterAll(async () => {
  await running?.stop();
  await removeAll(dirs);
});

describe("kgrag serve: the web app's files", () => {
  it("serves the assets of a rebuild made while it runs, and a missing file as a 404, never index.html", async () => {
    // A rebuild beside the running server: index.html names new assets.
    writeFileSync(join(web, "assets", "new.js"), "export const built = 2;");
    writeFileSync(
      join(web, "index.html"),
      '<!doctype html><script type="module" src="./assets/new.js"></script>',
    );
    const asset = await fetch(`${running.url}/assets/new.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toMatch(/javascript/);
    expect(await asset.text()).toBe("export const built = 2;");
    const gone = await fetch(`${running.url}/assets/gone.js`);
    expect(gone.status).toBe(404);
    expect(gone.headers.get("content-type")).not.toMatch(/html/);
    // An app route is still the app, and a path out of the folder is no file of the server's.
    const route = await fetch(`${running.url}/graph`);
    expect(await route.text()).toContain("./assets/new.js");
    const climbing = await fetch(`${running.url}/assets/..%2f..%2f..%2fetc%2fpasswd.txt`);
    expect(climbing.status).toBeGreaterThanOrEqual(400);
    expect(await climbing.text()).not.toMatch(/root:/);
  });

  it("answers an unknown API path with a JSON 404, not the app: Ollama's, OpenAI's and the REST API's", async () => {
    for (const [path, body] of [
      ["/api/pull", { error: "No route GET /api/pull" }],
      ["/v1/embeddings", { error: { code: "not_found", message: "No route GET /v1/embeddings" } }],
      ["/api/v1/nothing", { error: { code: "not_found", message: "No route GET /api/v1/nothing" } }],
    ] as const) {
      const response = await fetch(`${running.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.json(), path).toEqual(body);
    }
  });

  it("answers a path asked with the wrong method with the methods it takes (curl of a POST route sends GET)", async () => {
    for (const [path, body] of [
      [
        "/api/v1/query",
        { error: { code: "not_found", message: "No route GET /api/v1/query; this path takes POST" } },
      ],
      [
        "/api/v1/documents/doc-1/reindex",
        {
          error: {
            code: "not_found",
            message: "No route GET /api/v1/documents/doc-1/reindex; this path takes POST",
          },
        },
      ],
      ["/api/chat", { error: "No route GET /api/chat; this path takes POST" }],
    ] as const) {
      const response = await fetch(`${running.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.json(), path).toEqual(body);
    }
  });
});
