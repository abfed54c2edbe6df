import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseApiKeys, serverConfigFrom } from "../../src/server/server-config.js";
import {
  ATLAS_DOCS,
  HARBOUR_DOCS,
  json,
  offlineWorkspace,
  type Running,
  removeAll,
  startServer,
  tempDir,
} from "../support/server.js";

const ADMIN = "admin-key-0123456789";
const HARBOUR_ONLY = "harbour-key-0123456789";
const dirs: string[] = [];
let running: Running;
let root: string;

beforeAll(async () => {
  // A folder of workspaces: both are served, each under its folder's name.
  root = await tempDir("secure");
  dirs.push(root);
  for (const [name, docs] of [
    ["atlas", ATLAS_DOCS],
    ["harbour", HARBOUR_DOCS],
  ] as const) {
    mkdirSync(join(root, name));
    await offlineWorkspace(join(root, name), docs);
  }
  running = await startServer({
    workspaces: [root],
    server: { apiKeys: parseApiKeys(`${ADMIN},${HARBOUR_ONLY}=harbour`) },
  });
}, 60_000);

afterAll(async () => {
  await running?.stop();
  await removeAll(dirs);
});

const call = (
  path: string,
  init: RequestInit & { key?: string; bearer?: string; workspace?: string } = {},
) => {
  const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
  if (init.key) headers["x-api-key"] = init.key;
  if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
  if (init.workspace) headers["x-kgrag-workspace"] = init.workspace;
  if (init.body) headers["content-type"] = "application/json";
  return fetch(`${running.url}${path}`, { ...init, headers });
};

describe("kgrag serve: defaults", () => {
  it("binds to 127.0.0.1 and keeps CORS off unless told otherwise", async () => {
    expect(serverConfigFrom({}, {})).toMatchObject({ host: "127.0.0.1", corsOrigins: [], apiKeys: [] });
    expect(new URL(running.url).hostname).toBe("127.0.0.1");
    const response = await call("/health", { headers: { origin: "https://evil.example" } });
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("reads keys and their workspaces from KGRAG_API_KEYS", () => {
    expect(serverConfigFrom({}, { KGRAG_API_KEYS: "k-000000001, k-000000002=a+b" }).apiKeys).toEqual([
      { key: "k-000000001" },
      { key: "k-000000002", workspaces: ["a", "b"] },
    ]);
    // A key too short to be a secret is refused, and the message names the variable to fix.
    expect(() => serverConfigFrom({}, { KGRAG_API_KEYS: "key1,key2=a" })).toThrow(
      /KGRAG_API_KEYS.*at least 8 characters/,
    );
  });
});

describe("kgrag serve: API keys", () => {
  it("are required on every API route, the Ollama-compatible ones and the API description included", async () => {
    const routes: [string, RequestInit][] = [
      ["/api/v1/workspaces", {}],
      ["/api/v1/documents", {}],
      ["/api/v1/query", { method: "POST", body: JSON.stringify({ question: "Who?" }) }],
      ["/api/v1/graph/entities/popular", {}],
      ["/api/v1/jobs", {}],
      ["/api/tags", {}],
      ["/api/ps", {}],
      ["/api/version", {}],
      ["/api/show", { method: "POST", body: JSON.stringify({ model: "kgrag" }) }],
      [
        "/api/chat",
        { method: "POST", body: JSON.stringify({ messages: [{ role: "user", content: "Who?" }] }) },
      ],
      ["/api/generate", { method: "POST", body: JSON.stringify({ prompt: "Who?" }) }],
      ["/v1/models", {}],
      [
        "/v1/chat/completions",
        { method: "POST", body: JSON.stringify({ messages: [{ role: "user", content: "Who?" }] }) },
      ],
      ["/openapi.json", {}],
    ];
    for (const [path, init] of routes) {
      const anonymous = await call(path, init);
      expect(anonymous.status, path).toBe(401);
      // The Ollama-compatible routes answer in Ollama's shape: `error` is a string its clients show.
      const ollama = path.startsWith("/api/") && !path.startsWith("/api/v1/");
      expect((await json(anonymous)).error, path).toEqual(
        ollama
          ? expect.stringMatching(/^An API key is required/)
          : expect.objectContaining({ code: "unauthorized" }),
      );
      const wrong = await call(path, { ...init, key: "wrong-key-0000000" });
      expect(wrong.status, path).toBe(401);
      if (ollama) expect(await json(wrong), path).toEqual({ error: "The API key is not valid" });
      const allowed = await call(path, { ...init, key: ADMIN });
      expect(allowed.status, path).toBe(200);
      // Read to the end: /api/chat streams, and a stream left open would hold the server's shutdown.
      await allowed.text();
    }
  });

  it("are asked for in Ollama's shape under its paths, on a route kgrag does not serve too", async () => {
    // Checked before routing: an Ollama client probing /api/pull hears of the key as a string it shows.
    for (const [path, method] of [
      ["/api/pull", "POST"],
      ["/api/embed", "POST"],
      ["/api/nothing", "GET"],
    ] as const) {
      const anonymous = await call(path, { method });
      expect(anonymous.status, path).toBe(401);
      expect(await json(anonymous), path).toEqual({
        error: expect.stringMatching(/^An API key is required/),
      });
      const wrong = await call(path, { method, key: "wrong-key-0000000" });
      expect(await json(wrong), path).toEqual({ error: "The API key is not valid" });
    }
    const rest = await call("/api/v1/nothing");
    expect((await json(rest)).error).toMatchObject({ code: "unauthorized" });
  });

  it("accept Bearer and X-API-Key alike", async () => {
    expect((await call("/api/v1/workspaces", { bearer: ADMIN })).status).toBe(200);
    expect((await call("/api/v1/workspaces", { key: ADMIN })).status).toBe(200);
  });

  it("leave /health open but tell only {ok} to a caller without a key", async () => {
    expect(await json(await call("/health"))).toEqual({ ok: true });
    expect(await json(await call("/health", { key: ADMIN }))).toHaveProperty("workspaces");
    const ids = (health: Record<string, unknown>) => (health.workspaces as { id: string }[]).map((w) => w.id);
    expect(ids(await json(await call("/health", { key: ADMIN })))).toEqual(["atlas", "harbour"]);
    // A key limited to some workspaces hears about those only.
    expect(ids(await json(await call("/health", { key: HARBOUR_ONLY })))).toEqual(["harbour"]);
  });
});

describe("kgrag serve: several workspaces", () => {
  it("keeps them apart: each answers from its own documents", async () => {
    const atlas = await json(await call("/api/v1/documents", { key: ADMIN, workspace: "atlas" }));
    const harbour = await json(await call("/api/v1/documents?workspace=harbour", { key: ADMIN }));
    expect((atlas.items as { id: string }[]).map((d) => d.id).sort()).toEqual(["lumen", "porto"]);
    expect((harbour.items as { id: string }[]).map((d) => d.id)).toEqual(["harbour"]);
    const answer = await json(
      await call("/api/v1/query", {
        method: "POST",
        key: ADMIN,
        workspace: "harbour",
        body: JSON.stringify({
          question: "Who founded Lumen Robotics, and who built Harbour Light?",
          contextOnly: true,
        }),
      }),
    );
    // A question either workspace has passages for: harbour's are the ones found.
    const found = (answer.references as { docId: string }[]).map((r) => r.docId);
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((id) => id === "harbour")).toBe(true);
    const unknown = await call("/api/v1/documents", { key: ADMIN, workspace: "nowhere" });
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).error).toMatchObject({ code: "workspace_not_found" });
  });

  it("limit a key to its workspaces, which it gets by default", async () => {
    const list = await json(await call("/api/v1/workspaces", { key: HARBOUR_ONLY }));
    expect((list.workspaces as { id: string }[]).map((w) => w.id)).toEqual(["harbour"]);
    // Names only: the server's folders are not its clients' business.
    expect(list.workspaces).toEqual([{ id: "harbour", storage: "sqlite", neo4j: false }]);
    expect(JSON.stringify(await json(await call("/api/v1/workspaces", { key: ADMIN })))).not.toContain(root);
    const refused = await call("/api/v1/documents", { key: HARBOUR_ONLY, workspace: "atlas" });
    expect(refused.status).toBe(403);
    expect((await json(refused)).error).toMatchObject({ code: "forbidden" });
    expect((await call("/api/v1/graph/entities?workspace=atlas", { key: HARBOUR_ONLY })).status).toBe(403);
    const own = await json(await call("/api/v1/documents", { key: HARBOUR_ONLY }));
    expect((own.items as { id: string }[]).map((d) => d.id)).toEqual(["harbour"]);
  });

  it("answer a request for a workspace the key may not use with 403 on every route, never with another workspace's data", async () => {
    // Ids that exist in harbour, the one workspace this key may use: a route that fell back to it
    // would answer them.
    const harbourEntity = "Osric Venn";
    const chunk = (
      (
        await json(
          await call(`/api/v1/graph/entity?name=${encodeURIComponent(harbourEntity)}`, { key: HARBOUR_ONLY }),
        )
      ).sources as { chunkId: string }[]
    )[0]?.chunkId;
    expect(chunk).toBeTruthy();
    const community = (
      (await json(await call("/api/v1/graph/communities", { key: HARBOUR_ONLY }))).items as { id: string }[]
    )[0]?.id;
    const jobs = (await json(await call("/api/v1/jobs", { key: HARBOUR_ONLY }))).items as { id: string }[];
    const routes: [string, RequestInit][] = [
      ["/api/v1/documents", {}],
      ["/api/v1/uploads", {}],
      ["/api/v1/jobs", {}],
      ["/api/v1/graph/entities?q=Osric", {}],
      ["/api/v1/graph/entities/popular", {}],
      [`/api/v1/graph/entity?name=${encodeURIComponent(harbourEntity)}`, {}],
      [`/api/v1/graph/neighbourhood?name=${encodeURIComponent(harbourEntity)}`, {}],
      ["/api/v1/graph/relationship?source=Osric%20Venn&target=Harbour%20Light", {}],
      ["/api/v1/graph/communities", {}],
      [`/api/v1/passages/${encodeURIComponent(chunk ?? "")}`, {}],
      ["/api/v1/entities/duplicates", {}],
      ["/api/v1/entities/history", {}],
      [
        "/api/v1/query",
        { method: "POST", body: JSON.stringify({ question: "Who built Harbour Light?", contextOnly: true }) },
      ],
      [
        "/api/v1/entities/rename",
        { method: "POST", body: JSON.stringify({ entity: harbourEntity, name: "O. Venn" }) },
      ],
    ];
    if (community) routes.push([`/api/v1/graph/communities/${encodeURIComponent(community)}`, {}]);
    if (jobs[0]) routes.push([`/api/v1/jobs/${encodeURIComponent(jobs[0].id)}`, {}]);
    for (const [path, init] of routes) {
      const separator = path.includes("?") ? "&" : "?";
      for (const [how, response] of [
        ["header", await call(path, { ...init, key: HARBOUR_ONLY, workspace: "atlas" })],
        ["query", await call(`${path}${separator}workspace=atlas`, { ...init, key: HARBOUR_ONLY })],
      ] as const) {
        expect(response.status, `${how} ${path}`).toBe(403);
        expect((await json(response)).error, `${how} ${path}`).toMatchObject({ code: "forbidden" });
      }
    }
    // Harbour's entity is still there: nothing above renamed it.
    expect(
      (await call(`/api/v1/graph/entity?name=${encodeURIComponent(harbourEntity)}`, { key: HARBOUR_ONLY }))
        .status,
    ).toBe(200);
  });

  it("refuse a request whose header and address name different workspaces, rather than answer one for the other", async () => {
    for (const path of ["/api/v1/documents", "/api/v1/graph/entities/popular", "/api/v1/graph/communities"]) {
      const response = await call(`${path}?workspace=atlas`, { key: ADMIN, workspace: "harbour" });
      expect(response.status, path).toBe(400);
      expect((await json(response)).error, path).toMatchObject({ code: "workspace_conflict" });
      // Both naming the same one is fine.
      expect((await call(`${path}?workspace=atlas`, { key: ADMIN, workspace: "atlas" })).status, path).toBe(
        200,
      );
    }
  });
});

/** A question each of the test workspaces answers from its own documents. */
const EITHER = "/naive Who built Harbour Light, and who founded Lumen Robotics?";

/** An Ollama chat, not streamed. */
const ollamaChat = (url: string, key: string, model: string, question = EITHER) =>
  fetch(`${url}/api/chat`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify({ model, stream: false, messages: [{ role: "user", content: question }] }),
  });

/** The ids of the documents an Ollama answer lists under "Sources" (none when it lists none). */
async function sourceDocs(response: Response): Promise<string[]> {
  expect(response.status).toBe(200);
  const body = await json(response);
  const sources = (body.message as { content: string }).content.split("Sources:")[1] ?? "";
  return [...new Set([...sources.matchAll(/\(([\w-]+), passage/g)].map((m) => m[1] as string))].sort();
}

/** Answered from `docs` of one workspace: some source, and every source one of them. */
function answeredFrom(found: string[], docs: string[]): void {
  expect(found.length).toBeGreaterThan(0);
  for (const id of found) expect(docs).toContain(id);
}

describe("kgrag serve: Ollama models for several workspaces", () => {
  const chat = (key: string, model: string) => ollamaChat(running.url, key, model);
  const names = async (key: string) =>
    ((await json(await call("/api/tags", { key }))).models as { name: string }[]).map((m) => m.name);

  it("lists kgrag:latest for the default workspace and kgrag-<id>:latest for each other the key may use", async () => {
    expect(await names(ADMIN)).toEqual(["kgrag:latest", "kgrag-harbour:latest"]);
    expect(await names(HARBOUR_ONLY)).toEqual(["kgrag:latest"]);
    // The running models are the same ones: a workspace stays open while the server runs.
    const running = async (key: string) =>
      ((await json(await call("/api/ps", { key }))).models as { name: string }[]).map((m) => m.name);
    expect(await running(ADMIN)).toEqual(["kgrag:latest", "kgrag-harbour:latest"]);
    expect(await running(HARBOUR_ONLY)).toEqual(["kgrag:latest"]);
    const shown = async (key: string, model: string) =>
      (await json(await call("/api/show", { method: "POST", key, body: JSON.stringify({ model }) })))
        .model_info;
    expect(await shown(ADMIN, "kgrag:latest")).toMatchObject({ "kgrag.workspace": "atlas" });
    expect(await shown(ADMIN, "kgrag-harbour:latest")).toMatchObject({ "kgrag.workspace": "harbour" });
    expect(await shown(HARBOUR_ONLY, "kgrag:latest")).toMatchObject({ "kgrag.workspace": "harbour" });
  });

  it("routes a chat by its model, within the key's workspaces", async () => {
    // The same question, which either workspace answers: the sources tell which one did.
    answeredFrom(await sourceDocs(await chat(ADMIN, "kgrag-harbour:latest")), ["harbour"]);
    answeredFrom(await sourceDocs(await chat(ADMIN, "kgrag-atlas")), ["lumen", "porto"]);
    answeredFrom(await sourceDocs(await chat(ADMIN, "kgrag:latest")), ["lumen", "porto"]);
    answeredFrom(await sourceDocs(await chat(HARBOUR_ONLY, "kgrag:latest")), ["harbour"]);
    // A workspace the key may not use is a model it does not have.
    const refused = await chat(HARBOUR_ONLY, "kgrag-atlas:latest");
    expect(refused.status).toBe(404);
    expect(await json(refused)).toEqual({ error: "model 'kgrag-atlas:latest' not found" });
  });

  it("names workspaces whose ids differ only by case apart, and finds each by its exact id", async () => {
    const dir = await tempDir("cased");
    dirs.push(dir);
    const upper = join(dir, "x", "Docs");
    const lower = join(dir, "y", "docs");
    mkdirSync(upper, { recursive: true });
    mkdirSync(lower, { recursive: true });
    await offlineWorkspace(upper, ATLAS_DOCS);
    await offlineWorkspace(lower, HARBOUR_DOCS);
    const cased = await startServer({ workspaces: [lower, upper], server: { apiKeys: parseApiKeys(ADMIN) } });
    try {
      const tags = await json(await fetch(`${cased.url}/api/tags`, { headers: { "x-api-key": ADMIN } }));
      expect((tags.models as { name: string }[]).map((m) => m.name)).toEqual([
        "kgrag:latest",
        "kgrag-Docs:latest",
      ]);
      answeredFrom(await sourceDocs(await ollamaChat(cased.url, ADMIN, "kgrag-Docs:latest")), [
        "lumen",
        "porto",
      ]);
      answeredFrom(await sourceDocs(await ollamaChat(cased.url, ADMIN, "kgrag-docs:latest")), ["harbour"]);
      answeredFrom(await sourceDocs(await ollamaChat(cased.url, ADMIN, "kgrag:latest")), ["harbour"]);
      // A name both ids fit as well is no model.
      expect((await ollamaChat(cased.url, ADMIN, "kgrag-DOCS")).status).toBe(404);
    } finally {
      await cased.stop();
    }
  }, 60_000);
});

describe("kgrag serve: rate limit and CORS allow-list", () => {
  it("limits each key on its own, with a JSON 429", async () => {
    const dir = await tempDir("limited");
    dirs.push(dir);
    await offlineWorkspace(dir, []);
    const limited = await startServer({
      workspaces: [dir],
      server: {
        apiKeys: parseApiKeys("first-key-00000000,second-key-0000000"),
        rateLimitPerMinute: 3,
        corsOrigins: ["https://app.example"],
      },
    });
    try {
      const get = (key: string, origin?: string) =>
        fetch(`${limited.url}/api/v1/jobs`, { headers: { "x-api-key": key, ...(origin ? { origin } : {}) } });
      for (let i = 0; i < 3; i++) expect((await get("first-key-00000000")).status).toBe(200);
      const over = await get("first-key-00000000");
      expect(over.status).toBe(429);
      expect((await json(over)).error).toEqual({
        code: "rate_limited",
        message: expect.stringMatching(/^Rate limit reached: 3 requests per minute; retry in /),
      });
      // An Ollama route says the same in Ollama's shape.
      const tags = await fetch(`${limited.url}/api/tags`, { headers: { "x-api-key": "first-key-00000000" } });
      expect(tags.status).toBe(429);
      expect(await json(tags)).toEqual({ error: expect.stringMatching(/^Rate limit reached: /) });
      const other = await get("second-key-0000000", "https://app.example");
      expect(other.status).toBe(200);
      expect(other.headers.get("access-control-allow-origin")).toBe("https://app.example");
      const stranger = await get("second-key-0000000", "https://evil.example");
      expect(stranger.headers.get("access-control-allow-origin")).toBeNull();
      // A URL Fastify refuses before any hook runs (a broken percent-escape) still carries the
      // allowed origin's CORS headers, so its page can read the error; a stranger gets none.
      const unroutable = (origin: string) =>
        fetch(`${limited.url}/api/v1/jobs/%ZZ`, { headers: { "x-api-key": "second-key-0000000", origin } });
      const refused = await unroutable("https://app.example");
      expect(refused.status).toBe(400);
      expect((await json(refused)).error).toMatchObject({ code: "bad_request" });
      expect(refused.headers.get("access-control-allow-origin")).toBe("https://app.example");
      expect(refused.headers.get("vary")).toMatch(/Origin/);
      // A page of an allowed origin may delete (a document, an entity), edit a document's metadata
      // and read the cache header.
      const preflight = await fetch(`${limited.url}/api/v1/documents/doc-1`, {
        method: "OPTIONS",
        headers: {
          origin: "https://app.example",
          "access-control-request-method": "DELETE",
          "access-control-request-headers": "x-api-key",
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-methods")?.split(/, */)).toEqual(
        expect.arrayContaining(["DELETE", "PATCH"]),
      );
      expect(other.headers.get("access-control-expose-headers")).toContain("x-kgrag-cache");
      const refusedStranger = await unroutable("https://evil.example");
      expect(refusedStranger.status).toBe(400);
      expect(refusedStranger.headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await limited.stop();
    }
  }, 60_000);
});
