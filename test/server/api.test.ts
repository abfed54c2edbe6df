import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { rememberRetiredIds } from "../../src/community/community-aliases.js";
import { runQuery } from "../../src/query/query-engine.js";
import type { QueryResult } from "../../src/query/result.js";
import { REPO_ROOT } from "../support/cli-child.js";
import {
  ATLAS_DOCS,
  json,
  offlineWorkspace,
  type Running,
  readEvents,
  removeAll,
  startServer,
  tempDir,
} from "../support/server.js";

const dirs: string[] = [];
let running: Running;

beforeAll(async () => {
  const dir = await tempDir("api");
  dirs.push(dir);
  await offlineWorkspace(dir, ATLAS_DOCS);
  running = await startServer({ workspaces: [dir] });
}, 60_000);

afterAll(async () => {
  await running?.stop();
  await removeAll(dirs);
});

const post = (path: string, body: unknown) =>
  fetch(`${running.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const get = (path: string) => fetch(`${running.url}${path}`);

describe("kgrag serve: meta routes", () => {
  it("reports health with storage, models and version", async () => {
    const response = await get("/health");
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body).toMatchObject({ ok: true, models: { chat: "offline" } });
    expect(body.workspaces).toEqual([expect.objectContaining({ storage: "sqlite", ok: true })]);
    expect(typeof body.version).toBe("string");
  });

  it("lists its workspace and publishes an OpenAPI document with the routes", async () => {
    const list = await json(await get("/api/v1/workspaces"));
    expect(list.workspaces).toEqual([expect.objectContaining({ storage: "sqlite", neo4j: false })]);
    const openapi = await json(await get("/openapi.json"));
    expect(Object.keys(openapi.paths as object)).toEqual(
      expect.arrayContaining([
        "/api/v1/query",
        "/api/v1/documents",
        "/api/v1/graph/neighbourhood",
        "/api/chat",
      ]),
    );
    expect((await get("/docs")).status).toBe(200);
  });

  it("answers an unknown route with a JSON 404", async () => {
    const response = await get("/api/v1/nothing");
    expect(response.status).toBe(404);
    expect(await json(response)).toEqual({ error: { code: "not_found", message: expect.any(String) } });
  });
});

describe("kgrag serve: query", () => {
  it("returns what the library returns for the same question and options", async () => {
    const response = await post("/api/v1/query", { question: "Who founded Lumen Robotics?", mode: "local" });
    expect(response.status).toBe(200);
    const result = (await response.json()) as QueryResult;
    const expected = await runQuery(
      running.server.context.registry.all[0]!.kgrag.services,
      "Who founded Lumen Robotics?",
      {
        mode: "local",
      },
    );
    expect(result.mode).toBe("local");
    expect(result.answer).toBe(expected.answer);
    expect(result.references).toEqual(expected.references);
    expect(result.answer).toContain("Mara Okafor");
  });

  it("passes scope filters and context only through", async () => {
    const result = (await (
      await post("/api/v1/query", {
        question: "Who trained Mara Okafor?",
        contextOnly: true,
        docIds: ["porto"],
      })
    ).json()) as QueryResult;
    expect(result.answer).toBe("");
    expect(result.references.length).toBeGreaterThan(0);
    expect(result.references.every((r) => r.docId === "porto")).toBe(true);
  });

  it("refuses bad bodies with 400 and a message naming the problem", async () => {
    const empty = await post("/api/v1/query", { question: "  " });
    expect(empty.status).toBe(400);
    expect(((await json(empty)).error as { message: string }).message).toMatch(/question/);
    const unknown = await post("/api/v1/query", { question: "x", topk: 3 });
    expect(unknown.status).toBe(400);
    expect(((await json(unknown)).error as { message: string }).message).toMatch(/topk/);
    const badMode = await post("/api/v1/query", { question: "x", mode: "deep" });
    expect(badMode.status).toBe(400);
    const notJson = await fetch(`${running.url}/api/v1/query`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(notJson.status).toBe(400);
    expect((await json(notJson)).error).toMatchObject({ code: "bad_json" });
    const scope = await post("/api/v1/query", { question: "x", docIds: ["no-such-doc"] });
    expect(scope.status).toBe(400);
    // A name callers reach for is answered with the option it means.
    const synonym = await post("/api/v1/query", { question: "x", filter: { kind: "company" } });
    expect(((await json(synonym)).error as { message: string }).message).toMatch(
      /"filter" \(did you mean "metadata"\?\)/,
    );
    const stream = await post("/api/v1/query", { question: "x", stream: true });
    expect(((await json(stream)).error as { message: string }).message).toMatch(
      /"stream" \(to stream, POST \/api\/v1\/query\/stream\)/,
    );
    // The body's own fields are suggested too, and a library callback is never: it is no field.
    const messageOf = async (body: object) =>
      ((await json(await post("/api/v1/query", body))).error as { message: string }).message;
    expect(await messageOf({ question: "x", timeoutms: 5 })).toMatch(
      /"timeoutms" \(did you mean "timeoutMs"\?\)/,
    );
    expect(await messageOf({ query: "x" })).toMatch(/"query" \(did you mean "question"\?\)/);
    const signal = await messageOf({ question: "x", signal: 1 });
    expect(signal).not.toMatch(/did you mean/);
    expect(signal).toMatch(/"signal" \(a query stops when its request closes or after timeoutMs\)/);
    expect(await messageOf({ question: "x", onContext: 1 })).toMatch(
      /"onContext" \(the context comes first in POST \/api\/v1\/query\/stream\)/,
    );
    // A question longer than the config allows is refused before any work is done on it.
    const long = await post("/api/v1/query", { question: `Who founded ${"Lumen ".repeat(2000)}?` });
    expect(long.status).toBe(400);
    expect(((await json(long)).error as { message: string }).message).toMatch(
      /The question is 12,013 characters long; at most 10,000 are taken \(config query.maxQuestionChars\)/,
    );
    // Metadata values may be numbers or booleans (compared as text, like the CLI's --filter); a
    // value no document has is refused as such, not for its type. The streaming route says the same.
    const numeric = await post("/api/v1/query", { question: "x", metadata: { kind: 2015 } });
    expect(numeric.status).toBe(400);
    const numericMessage = ((await json(numeric)).error as { message: string }).message;
    expect(numericMessage).toMatch(/kind=2015/);
    expect(numericMessage).not.toMatch(/expected string/);
    const streamed = await post("/api/v1/query/stream", { question: "x", metadata: { kind: "nope" } });
    expect(streamed.status).toBe(400);
    expect(streamed.headers.get("content-type")).toMatch(/application\/json/);
    expect((await json(streamed)).error).toMatchObject({ code: "bad_request" });
    const matched = (await (
      await post("/api/v1/query", { question: "Who founded Lumen Robotics?", metadata: { kind: "company" } })
    ).json()) as QueryResult;
    expect(matched.references.every((r) => r.docId === "lumen")).toBe(true);
  });

  it("refuses a numeric option past its bound with a 400 naming it, on both routes, in every mode", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ topK: 99_999_999_999 }, /topK: Too big: expected number to be <=10000/],
      [{ topK: 5_000_000_000, mode: "local" }, /topK: Too big/],
      [{ chunkTopK: 10_001, mode: "naive" }, /chunkTopK: Too big/],
      [{ totalTokens: 2_000_001, mode: "global" }, /totalTokens: Too big: expected number to be <=2000000/],
      [{ entityTokens: 1e12, mode: "hybrid" }, /entityTokens: Too big/],
    ];
    for (const route of ["/api/v1/query", "/api/v1/query/stream"]) {
      for (const [options, message] of cases) {
        const refused = await post(route, { question: "Who founded Lumen Robotics?", ...options });
        expect(refused.status).toBe(400);
        const { error } = (await refused.json()) as { error: { code: string; message: string } };
        expect(error.code).toBe("bad_request");
        expect(error.message).toMatch(message);
      }
    }
    // The bound itself is taken, and ranks no more than there is.
    const widest = await post("/api/v1/query", {
      question: "Who founded Lumen Robotics?",
      mode: "mix",
      topK: 10_000,
      chunkTopK: 10_000,
      contextOnly: true,
    });
    expect(widest.status).toBe(200);
    expect(((await widest.json()) as QueryResult).references.length).toBeGreaterThan(0);
  });

  it("streams context first, then the answer, then the full result", async () => {
    const events = await readEvents(
      await post("/api/v1/query/stream", { question: "Who founded Lumen Robotics?" }),
    );
    const names = events.map((e) => e.event);
    expect(names[0]).toBe("context");
    expect(names.at(-1)).toBe("done");
    expect(names).toContain("token");
    const context = events[0]?.data as { context: { references: unknown[]; context: { chunks: unknown[] } } };
    expect(context.context.references.length).toBeGreaterThan(0);
    const done = events.at(-1)?.data as QueryResult;
    const tokens = events.filter((e) => e.event === "token").map((e) => (e.data as { text: string }).text);
    expect(tokens.join("")).toBe(done.answer);
    expect(done.timings.totalMs).toBeGreaterThan(0);
  });
});

describe("kgrag serve: a stream that fails after it opened", () => {
  /** The workspace's queries fail after their first token, as a query process that died would. */
  function failAfterFirstToken() {
    const queries = running.server.context.registry.all[0]!.queries;
    return vi.spyOn(queries, "run").mockImplementation(async (_question, _options, events = {}) => {
      events.onToken?.("Partial ");
      throw new Error("the query process stopped (SIGKILL): /srv/secret/kgrag.sqlite is locked");
    });
  }

  it("sends a generic error event (SSE) and an error line (Ollama), the detail going to stderr only", async () => {
    const failing = failAfterFirstToken();
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const events = await readEvents(await post("/api/v1/query/stream", { question: "Who?" }));
      expect(events.map((e) => e.event)).toEqual(["token", "error"]);
      const { error } = events[1]!.data as { error: { code: string; message: string } };
      expect(error.code).toBe("query_failed");
      expect(error.message).not.toMatch(/secret|SIGKILL/);
      expect(error.message).toMatch(/server's log/);
      const lines = (
        await (await post("/api/chat", { messages: [{ role: "user", content: "Who?" }] })).text()
      )
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { error?: string });
      expect(lines.at(-1)?.error).toMatch(/server's log/);
      expect(lines.at(-1)?.error).not.toMatch(/secret/);
      const logged = stderr.mock.calls.map(([text]) => String(text)).join("");
      expect(logged).toMatch(/POST \/api\/v1\/query\/stream: .*\/srv\/secret\/kgrag\.sqlite/);
      expect(logged).toMatch(/POST \/api\/chat: .*\/srv\/secret\/kgrag\.sqlite/);
    } finally {
      stderr.mockRestore();
      failing.mockRestore();
    }
  });
});

describe("kgrag serve: graph", () => {
  it("finds entities by text and by prefix, and lists the most connected", async () => {
    const byText = await json(await get("/api/v1/graph/entities?q=robots&limit=5"));
    expect((byText.items as { name: string }[]).map((i) => i.name)).toContain("Lumen Robotics");
    const byPrefix = await json(await get("/api/v1/graph/entities?prefix=mara"));
    expect((byPrefix.items as { name: string }[]).map((i) => i.name)).toContain("Mara Okafor");
    // Both at once is refused, not answered by the full text alone as if the prefix were not there.
    const both = await get("/api/v1/graph/entities?q=robots&prefix=mara");
    expect(both.status).toBe(400);
    expect((await json(both)).error).toEqual({
      code: "bad_request",
      message: "Invalid querystring: prefix: give q (full text) or prefix (start of a name), not both",
    });
    const popular = (await json(await get("/api/v1/graph/entities/popular?limit=3"))).items as {
      degree: number;
    }[];
    expect(popular.length).toBe(3);
    expect(popular[0]!.degree).toBeGreaterThanOrEqual(popular[2]!.degree);
  });

  it("shows an entity with its relationships and its passages with the mention located", async () => {
    const body = await json(await get(`/api/v1/graph/entity?name=${encodeURIComponent("mara okafor")}`));
    expect(body.entity).toMatchObject({ name: "Mara Okafor" });
    expect((body.relationships as unknown[]).length).toBeGreaterThan(0);
    const source = (body.sources as { text: string; mentions: { start: number; end: number }[] }[])[0]!;
    const first = source.mentions[0]!;
    expect(source.text.slice(first.start, first.end)).toBe("Mara Okafor");
    const rel = (body.relationships as { source: string; target: string }[])[0]!;
    const detail = await json(
      await get(
        `/api/v1/graph/relationship?source=${encodeURIComponent(rel.source)}&target=${encodeURIComponent(rel.target)}`,
      ),
    );
    expect(detail.relationship).toMatchObject({ source: rel.source, target: rel.target });
    expect((detail.sources as unknown[]).length).toBeGreaterThan(0);
    const chunkId = (detail.sources as { chunkId: string }[])[0]!.chunkId;
    expect(await json(await get(`/api/v1/passages/${chunkId}`))).toMatchObject({ chunkId });
  });

  it("caps a neighbourhood and says when it cut it short", async () => {
    const wide = await json(await get("/api/v1/graph/neighbourhood?name=Mara%20Okafor&depth=2&maxNodes=500"));
    const nodes = wide.nodes as { id: string }[];
    expect(nodes.length).toBeGreaterThan(3);
    const ids = new Set(nodes.map((n) => n.id));
    for (const edge of wide.edges as { source: string; target: string }[]) {
      expect(ids.has(edge.source) && ids.has(edge.target)).toBe(true);
    }
    const capped = await json(
      await get("/api/v1/graph/neighbourhood?name=Mara%20Okafor&depth=2&maxNodes=2&maxEdges=1"),
    );
    expect((capped.nodes as unknown[]).length).toBe(2);
    expect((capped.edges as unknown[]).length).toBeLessThanOrEqual(1);
    expect(capped.truncated).toBe(true);
    const tooMany = await get("/api/v1/graph/neighbourhood?name=Mara%20Okafor&maxNodes=5000");
    expect(tooMany.status).toBe(400);
    expect((await get("/api/v1/graph/neighbourhood?name=Nobody%20Here")).status).toBe(404);
    // An empty parameter is a parameter not given (depth 1), not 0 (the entity alone).
    const blank = await json(await get("/api/v1/graph/neighbourhood?name=Mara%20Okafor&depth=&maxNodes="));
    const depthOne = await json(await get("/api/v1/graph/neighbourhood?name=Mara%20Okafor"));
    expect((blank.nodes as unknown[]).length).toBeGreaterThan(1);
    expect(blank).toEqual(depthOne);
  });

  it("lists the communities and shows each report with its members", async () => {
    const items = (await json(await get("/api/v1/graph/communities"))).items as {
      id: string;
      size: number;
    }[];
    expect(items.length).toBeGreaterThan(0);
    const one = await json(await get(`/api/v1/graph/communities/${items[0]!.id}`));
    expect((one.members as string[]).length).toBe(items[0]!.size);
    expect((one.report as { text: string }).text.length).toBeGreaterThan(0);
    const gone = await get("/api/v1/graph/communities/c9-none");
    expect(gone.status).toBe(404);
    expect((await json(gone)).error).toEqual({
      code: "not_found",
      message: expect.stringMatching(
        /^Community c9-none not found: .*merged.*GET \/api\/v1\/graph\/communities/,
      ),
    });
  });

  it("answers a retired community id with the community that took over its members", async () => {
    const { store } = running.server.context.registry.all[0]!.kgrag.services;
    const communities = await store.listCommunities();
    const successor = communities[0]!;
    const live = new Set(communities.map((c) => c.id));
    await rememberRetiredIds(store, [{ id: "c0-retired", successorId: successor.id }], live, 10);
    try {
      const moved = await json(await get("/api/v1/graph/communities/c0-retired"));
      expect(moved).toEqual({
        ...(await json(await get(`/api/v1/graph/communities/${successor.id}`))),
        movedFrom: "c0-retired",
      });
    } finally {
      await rememberRetiredIds(store, [{ id: "c0-retired", successorId: null }], live, 10);
    }
  });

  it("says what each id a report cites stands for, in names a reader can look up", async () => {
    const items = (await json(await get("/api/v1/graph/communities"))).items as { id: string }[];
    const details = await Promise.all(
      items.map(async (item) => json(await get(`/api/v1/graph/communities/${item.id}`))),
    );
    // Offline (extractive) reports cite the relationships they quote, [R:n], in their summaries.
    const cited = details.filter((d) => /\[R:\d+/.test((d.report as { summary: string }).summary));
    expect(cited.length).toBeGreaterThan(0);
    for (const detail of cited) {
      const members = new Set(detail.members as string[]);
      const citations = detail.citations as Record<
        string,
        { kind: string; source?: string; target?: string }
      >;
      const text = (detail.report as { summary: string }).summary;
      for (const [, id] of text.matchAll(/\[(R:\d+)/g)) {
        const citation = citations[id as string];
        expect(citation).toEqual({
          kind: "relationship",
          source: expect.any(String),
          target: expect.any(String),
        });
        expect(members.has(citation?.source ?? "") && members.has(citation?.target ?? "")).toBe(true);
      }
    }
    const openapi = await json(await get("/openapi.json"));
    const route = (openapi.paths as Record<string, { get: { responses: Record<string, unknown> } }>)[
      "/api/v1/graph/communities/{id}"
    ];
    expect(JSON.stringify(route?.get.responses["200"])).toContain("citations");
  });
});

describe("kgrag serve: Neo4j-only routes on an embedded workspace", () => {
  it("answer 404 neo4j_required", async () => {
    for (const [path, body] of [
      ["/api/v1/cypher", { query: "MATCH (n) RETURN n" }],
      ["/api/v1/cypher/ask", { question: "How many entities?" }],
      ["/api/v1/chat/sessions", {}],
    ] as const) {
      const response = await post(path, body);
      expect(response.status).toBe(404);
      expect((await json(response)).error).toMatchObject({ code: "neo4j_required" });
    }
  });
});

describe("kgrag serve: Ollama-compatible API", () => {
  it("lists the kgrag model and its version", async () => {
    const tags = await json(await get("/api/tags"));
    expect(tags.models).toEqual([expect.objectContaining({ name: "kgrag:latest", model: "kgrag:latest" })]);
  });

  it("reports an Ollama version that clients with a minimum accept, and kgrag's own beside it", async () => {
    const body = (await json(await get("/api/version"))) as { version: string; kgrag_version: string };
    const ownVersion = (
      JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }
    ).version;
    expect(body.kgrag_version).toBe(ownVersion);
    // Open WebUI reads the version as dotted integers (before any "-suffix"); Copilot and Raycast
    // want at least 0.6.4, Continue 0.6.5.
    expect(body.version).toMatch(/^\d+\.\d+\.\d+$/);
    const parts = (version: string) => version.split(".").map(Number);
    const atLeast = (version: string, minimum: string) => {
      const [a, b] = [parts(version), parts(minimum)];
      for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
      return true;
    };
    for (const minimum of ["0.1.16", "0.5.0", "0.6.4", "0.6.5"])
      expect(atLeast(body.version, minimum)).toBe(true);
  });

  it("streams NDJSON answers with citations and a Sources list; a prefix picks the mode", async () => {
    const response = await post("/api/chat", {
      model: "kgrag:latest",
      messages: [{ role: "user", content: "/naive Who founded Lumen Robotics?" }],
    });
    expect(response.headers.get("content-type")).toMatch(/ndjson/);
    const lines = (await response.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { message: { content: string }; done: boolean; done_reason?: string });
    expect(lines.at(-1)).toMatchObject({ done: true, done_reason: "stop" });
    const content = lines.map((l) => l.message.content).join("");
    expect(content).toMatch(/\[1\]/);
    expect(content).toMatch(/Sources:\n\[1\] /);
    const naive = await runQuery(
      running.server.context.registry.all[0]!.kgrag.services,
      "Who founded Lumen Robotics?",
      {
        mode: "naive",
      },
    );
    expect(content.startsWith(naive.answer.trimEnd())).toBe(true);
  });

  it("answers every error in Ollama's shape, a string under `error`, with the REST routes' statuses", async () => {
    const cases: [string, unknown, number, RegExp][] = [
      ["/api/chat", { model: "kgrag:latest", messages: {} }, 400, /^Invalid body: messages: /],
      ["/api/chat", { model: "kgrag", messages: [{ role: "robot", content: "hi" }] }, 400, /^Invalid body: /],
      ["/api/chat", { messages: [{ role: "system", content: "hi" }] }, 400, /no user message/],
      [
        "/api/chat",
        { model: 7, messages: [{ role: "user", content: "Who?" }] },
        400,
        /^Invalid body: model: /,
      ],
      ["/api/show", { model: 7 }, 400, /^Invalid body: model: /],
      ["/api/show", {}, 400, /^model is required$/],
      [
        "/api/chat",
        { model: "nope", messages: [{ role: "user", content: "Who?" }] },
        404,
        /^model 'nope' not found$/,
      ],
    ];
    for (const [path, body, status, message] of cases) {
      const response = await post(path, body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(await json(response), JSON.stringify(body)).toEqual({ error: expect.stringMatching(message) });
    }
    const empty = await fetch(`${running.url}/api/chat`, { method: "POST" });
    expect(empty.status).toBe(400);
    expect(typeof (await json(empty)).error).toBe("string");
    // A path kgrag does not serve under Ollama's prefix too; the REST API keeps its own shape.
    const pull = await post("/api/pull", { model: "kgrag" });
    expect(pull.status).toBe(404);
    expect(await json(pull)).toEqual({ error: "No route POST /api/pull" });
    const rest = await post("/api/v1/query", { question: 7 });
    expect(rest.status).toBe(400);
    expect((await json(rest)).error).toMatchObject({ code: "bad_request", message: expect.any(String) });
  });

  it("answers without streaming and refuses a conversation without a user message", async () => {
    const answer = await json(
      await post("/api/chat", {
        model: "kgrag:latest",
        stream: false,
        messages: [{ role: "user", content: "Where is Lumen Robotics?" }],
      }),
    );
    expect(answer).toMatchObject({ done: true, message: { role: "assistant" } });
    const bad = await post("/api/chat", {
      model: "kgrag:latest",
      messages: [{ role: "system", content: "hi" }],
    });
    expect(bad.status).toBe(400);
    // A mode prefix alone is no question.
    const prefixOnly = await post("/api/chat", {
      model: "kgrag:latest",
      messages: [{ role: "user", content: "/local" }],
    });
    expect(prefixOnly.status).toBe(400);
    expect((await json(prefixOnly)).error).toMatch(/no question/);
  });

  it("reads a JSON body whatever its content type, as Ollama's documented curl sends it", async () => {
    const response = await fetch(`${running.url}/api/chat`, {
      method: "POST",
      // What `curl -d '{...}'` sends.
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: JSON.stringify({
        model: "kgrag:latest",
        stream: false,
        messages: [{ role: "user", content: "Who founded Lumen Robotics?" }],
      }),
    });
    expect(response.status).toBe(200);
    expect(await json(response)).toMatchObject({ done: true, message: { role: "assistant" } });
    const notJson = await fetch(`${running.url}/api/chat`, { method: "POST", body: "{nope" });
    expect(notJson.status).toBe(400);
    expect(await json(notJson)).toEqual({ error: expect.stringMatching(/^The body is not JSON: /) });
    // The REST routes still take JSON only.
    const rest = await fetch(`${running.url}/api/v1/query`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: JSON.stringify({ question: "Who?" }),
    });
    expect(rest.status).toBe(415);
  });

  it("shows the model's details, and answers an unknown model 404 in Ollama's error shape", async () => {
    for (const body of [{ model: "kgrag:latest" }, { name: "kgrag" }]) {
      const response = await fetch(`${running.url}/api/show`, { method: "POST", body: JSON.stringify(body) });
      expect(response.status).toBe(200);
      const shown = await json(response);
      expect(shown).toMatchObject({
        details: { family: "kgrag", format: "kgrag" },
        capabilities: ["completion"],
        model_info: { "general.architecture": "kgrag", "kgrag.storage": "sqlite" },
      });
      expect(shown.modelfile).toMatch(/\/naive, \/local, \/global, \/hybrid, \/mix/);
    }
    const unknown = await post("/api/show", { model: "llama3:latest" });
    expect(unknown.status).toBe(404);
    expect(await json(unknown)).toEqual({ error: "model 'llama3:latest' not found" });
    const chat = await post("/api/chat", { model: "llama3", messages: [{ role: "user", content: "Who?" }] });
    expect(chat.status).toBe(404);
    expect(await json(chat)).toEqual({ error: "model 'llama3' not found" });
  });

  it("answers a message whose /prefix names no mode with the prefixes to use, asking nothing", async () => {
    const ask = vi.spyOn(running.server.context.registry.all[0]!.queries, "run");
    try {
      const answer = await json(
        await post("/api/chat", {
          model: "kgrag:latest",
          stream: false,
          messages: [{ role: "user", content: "/foo Who founded Lumen Robotics?" }],
        }),
      );
      expect(answer).toMatchObject({ done: true, done_reason: "stop", message: { role: "assistant" } });
      const text = (answer.message as { content: string }).content;
      expect(text).toMatch(/"\/foo" is not a query mode/);
      expect(text).toMatch(/\/naive, \/local, \/global, \/hybrid, \/mix/);
      const lines = (
        await (
          await post("/api/chat", {
            messages: [{ role: "user", content: "/foo Who founded Lumen Robotics?" }],
          })
        ).text()
      )
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { message: { content: string }; done: boolean });
      expect(lines.at(-1)).toMatchObject({ done: true, done_reason: "stop" });
      expect(lines.map((l) => l.message.content).join("")).toBe(text);
      expect(ask).not.toHaveBeenCalled();
    } finally {
      ask.mockRestore();
    }
  });
});
