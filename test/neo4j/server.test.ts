import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { Driver } from "neo4j-driver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../src/server/jobs/job-types.js";
import { childEnv } from "../support/cli-child.js";
import { liveDriver, liveNeo4j, skipReason, workspaceCounts } from "../support/live-neo4j.js";
import {
  lastUserMessage,
  type ScriptedServer,
  scriptByStage,
  startScriptedOpenAI,
} from "../support/scripted-openai-server.js";
import { json, type Running, readEvents, startServer } from "../support/server.js";

const PASSAGES = [
  {
    id: "corvane",
    title: "Corvane Shipping",
    text: "Corvane Shipping is a cargo line based in Port Ellery. It was founded in 1987 by Tomas Arkwright.",
  },
  {
    id: "arkwright",
    title: "Tomas Arkwright",
    text: "Tomas Arkwright was born in Vessen and studied at the Ellery Maritime Institute.",
  },
];

/** What the scripted model writes for the Text2Cypher question. */
const COUNT_ENTITIES = "MATCH (e:Entity {workspace: $workspace}) RETURN count(e) AS entities";
/** Passes the validator, fails when Neo4j runs it: / by zero. */
const DIVIDE_BY_ZERO = "MATCH (e:Entity {workspace: $workspace}) RETURN count(e) / 0 AS entities";

/**
 * The scripted model's Text2Cypher: a question about a "ratio" first gets a query that divides by
 * zero and, once Neo4j's error is in the prompt, the count; one "always" dividing never recovers.
 */
function text2CypherReply(prompt: string): string {
  if (/Question: .*always/.test(prompt)) return DIVIDE_BY_ZERO;
  if (/Question: .*ratio/.test(prompt) && !prompt.includes("/ by zero")) return DIVIDE_BY_ZERO;
  return COUNT_ENTITIES;
}

type AskReply = {
  cypher: string;
  executed: boolean;
  attempts: number;
  validation: { ok: boolean; messages: string[] };
  failedAttempts: { cypher: string; stage: string; errors: string[] }[];
};

/**
 * `kgrag serve` on a workspace stored in the live Neo4j the suite started: documents indexed
 * through the API (in the server's job process), then queries, entity search, neighbourhoods, the
 * read-only Cypher route and Text2Cypher with a scripted OpenAI-protocol model on 127.0.0.1.
 */
describe.skipIf(!liveNeo4j)(`kgrag serve on a Neo4j workspace (${liveNeo4j ? "live" : skipReason})`, () => {
  let root: string;
  let folder: string;
  let driver: Driver;
  let offline: Running;
  const neo4jEnv = () =>
    childEnv({
      KGRAG_STORAGE: "neo4j",
      NEO4J_URI: liveNeo4j?.uri ?? "",
      NEO4J_USERNAME: liveNeo4j?.username ?? "",
      NEO4J_PASSWORD: liveNeo4j?.password ?? "",
    });
  const get = (running: Running, path: string) => fetch(`${running.url}${path}`);
  const post = (running: Running, path: string, body: unknown) =>
    fetch(`${running.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  /** The workspace's entities as the database holds them, read beside the server. */
  const storedEntityNames = async () =>
    (
      await driver.executeQuery(
        "MATCH (e:Entity {workspace: $workspace}) WHERE e.anchor IS NULL RETURN e.name AS name ORDER BY name",
        { workspace: basename(folder) },
      )
    ).records.map((r) => r.get("name") as string);

  beforeAll(async () => {
    if (!liveNeo4j) return;
    driver = liveDriver(liveNeo4j);
    root = mkdtempSync(join(tmpdir(), "kgrag-neo4j-serve-"));
    folder = join(root, `serve-${Date.now()}`);
    offline = await startServer({ workspaces: [folder], env: neo4jEnv() });
    const submitted = await post(offline, "/api/v1/documents/texts", { documents: PASSAGES });
    expect(submitted.status).toBe(202);
    const { job } = (await submitted.json()) as { job: Job };
    const events = await readEvents(await get(offline, `/api/v1/jobs/${job.id}/events`));
    const final = events.at(-1)?.data as Job;
    expect(final.status, JSON.stringify(final)).toBe("done");
  }, 180_000);

  afterAll(async () => {
    if (!liveNeo4j) return;
    await offline?.stop();
    await driver?.executeQuery("MATCH (n {workspace: $workspace}) DETACH DELETE n", {
      workspace: basename(folder),
    });
    await driver?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("serves the workspace from Neo4j, with the documents the job indexed", async () => {
    const health = await json(await get(offline, "/health"));
    expect(health.workspaces).toEqual([expect.objectContaining({ storage: "neo4j", ok: true })]);
    const documents = await json(await get(offline, "/api/v1/documents"));
    expect((documents.items as { id: string; status: string }[]).map((d) => [d.id, d.status]).sort()).toEqual(
      [
        ["arkwright", "indexed"],
        ["corvane", "indexed"],
      ],
    );
    expect(await storedEntityNames()).toEqual(
      expect.arrayContaining(["Corvane Shipping", "Tomas Arkwright"]),
    );
  });

  it("answers a query with the passage that holds the answer", async () => {
    const response = await post(offline, "/api/v1/query", {
      question: "Who founded Corvane Shipping?",
      mode: "mix",
    });
    expect(response.status).toBe(200);
    const result = (await response.json()) as { answer: string; references: { docId: string }[] };
    expect(result.answer).toContain("Tomas Arkwright");
    expect(result.references.map((r) => r.docId)).toContain("corvane");
  });

  it("finds entities by full text and by prefix, as the database names them", async () => {
    const stored = await storedEntityNames();
    const byText = await json(await get(offline, "/api/v1/graph/entities?q=Arkwright"));
    expect((byText.items as { name: string }[]).map((e) => e.name)).toContain("Tomas Arkwright");
    const byPrefix = await json(await get(offline, "/api/v1/graph/entities?prefix=corv"));
    const names = (byPrefix.items as { name: string }[]).map((e) => e.name);
    expect(names).toContain("Corvane Shipping");
    for (const name of names) expect(stored).toContain(name);
  });

  it("returns a neighbourhood whose edges are the database's relationships among its nodes", async () => {
    const graph = await json(
      await get(offline, "/api/v1/graph/neighbourhood?name=Tomas%20Arkwright&depth=2"),
    );
    const nodes = (graph.nodes as { name: string }[]).map((n) => n.name);
    expect(nodes).toEqual(expect.arrayContaining(["Tomas Arkwright", "Corvane Shipping"]));
    const { records } = await driver.executeQuery(
      `MATCH (a:Entity {workspace: $workspace})-[r:RELATED]->(b:Entity {workspace: $workspace})
       WHERE a.name IN $nodes AND b.name IN $nodes AND r.anchor IS NULL
       RETURN a.name AS source, b.name AS target`,
      { workspace: basename(folder), nodes },
    );
    const pairs = (edges: { source: string; target: string }[]) =>
      edges.map((e) => [e.source, e.target].sort().join(" | ")).sort();
    expect(pairs(graph.edges as { source: string; target: string }[])).toEqual(
      pairs(records.map((r) => ({ source: r.get("source") as string, target: r.get("target") as string }))),
    );
    expect(graph.truncated).toBe(false);
    const capped = await json(
      await get(offline, "/api/v1/graph/neighbourhood?name=Tomas%20Arkwright&depth=2&maxNodes=2"),
    );
    expect((capped.nodes as unknown[]).length).toBe(2);
    expect(capped.truncated).toBe(true);
  });

  it("runs read-only Cypher in the workspace, and refuses a write with the workspace unchanged", async () => {
    const read = await post(offline, "/api/v1/cypher", {
      query:
        "MATCH (e:Entity {workspace: $workspace}) WHERE e.anchor IS NULL RETURN e.name AS name ORDER BY name",
    });
    expect(read.status).toBe(200);
    const rows = ((await read.json()) as { rows: { name: string }[] }).rows;
    expect(rows.map((r) => r.name)).toEqual(await storedEntityNames());
    // The workspace's own graph: other tests write to other workspaces of this database meanwhile.
    const before = await workspaceCounts(driver, basename(folder));
    const write = await post(offline, "/api/v1/cypher", {
      query: "MATCH (e:Entity {workspace: $workspace}) DETACH DELETE e",
    });
    expect(write.status).toBe(400);
    const refusal = (await json(write)).error as { code: string; message: string };
    expect(refusal.code).toBe("cypher_refused");
    // Said to the web console and API callers too, so it names no CLI command.
    expect(refusal.message).toBe(
      "Refused: Neo4j plans this query as write-only; kgrag runs only read-only Cypher.",
    );
    expect(before.nodes).toBeGreaterThan(0);
    expect(await workspaceCounts(driver, basename(folder))).toEqual(before);
    const withoutModel = await post(offline, "/api/v1/cypher/ask", { question: "How many entities?" });
    expect(withoutModel.status).toBe(400);
    expect((await json(withoutModel)).error).toMatchObject({ code: "llm_required" });
  });

  it("runs read-only DBMS introspection, and refuses a DBMS procedure off the list with 400 cypher_refused", async () => {
    const components = await post(offline, "/api/v1/cypher", {
      query: "CALL dbms.components() YIELD name, edition RETURN name, edition",
    });
    expect(components.status).toBe(200);
    expect(((await components.json()) as { rows: unknown[] }).rows).toEqual([
      { name: "Neo4j Kernel", edition: expect.any(String) },
    ]);
    const procedures = await post(offline, "/api/v1/cypher", {
      query: "SHOW PROCEDURES YIELD name WHERE name = 'db.schema.visualization' RETURN name",
    });
    expect(((await procedures.json()) as { rows: unknown[] }).rows).toEqual([
      { name: "db.schema.visualization" },
    ]);
    const config = await post(offline, "/api/v1/cypher", { query: "CALL dbms.listConfig()" });
    expect(config.status).toBe(400);
    expect((await json(config)).error).toEqual({
      code: "cypher_refused",
      message:
        "Refused: dbms.listConfig is not one of the read-only DBMS procedures kgrag runs (dbms.components, dbms.info, dbms.showCurrentUser); kgrag runs only read-only Cypher.",
    });
    // Neo4j plans this one as a read: the allow list refuses it by name, before EXPLAIN.
    const clear = await post(offline, "/api/v1/cypher", { query: "CALL db.stats.clear('QUERIES')" });
    expect(clear.status).toBe(400);
    expect((await json(clear)).error).toMatchObject({
      code: "cypher_refused",
      message: expect.stringMatching(
        /^Refused: procedure db\.stats\.clear is not one of the read-only procedures/,
      ),
    });
    const terminate = await post(offline, "/api/v1/cypher", {
      query: "TERMINATE TRANSACTIONS 'neo4j-transaction-1'",
    });
    expect(terminate.status).toBe(400);
    expect((await json(terminate)).error).toMatchObject({ code: "cypher_refused", message: /TERMINATE/ });
  });

  it("answers a query Neo4j cannot run with 400 cypher_error and Neo4j's message for the query as sent", async () => {
    const typo = await post(offline, "/api/v1/cypher", { query: "MATCH (e:Entity) RETURN e.name LIMT 2" });
    expect(typo.status).toBe(400);
    const error = (await json(typo)).error as { code: string; message: string };
    expect(error.code).toBe("cypher_error");
    const { message } = error;
    // Positions and the quoted line are those of the query sent, not of kgrag's `EXPLAIN <query>`.
    expect(message).toContain("Invalid input 'LIMT'");
    expect(message).toContain("(line 1, column 32 (offset: 31))");
    expect(message).toContain('"MATCH (e:Entity) RETURN e.name LIMT 2"');
    expect(message).not.toContain("EXPLAIN");
    const missing = await post(offline, "/api/v1/cypher", { query: "RETURN $name AS name" });
    expect(missing.status).toBe(400);
    expect((await json(missing)).error).toMatchObject({ code: "cypher_error", message: /name/ });
    const divided = await post(offline, "/api/v1/cypher", { query: "RETURN 1 / 0 AS x" });
    expect(divided.status).toBe(400);
    expect((await json(divided)).error).toMatchObject({ code: "cypher_error", message: /by zero/ });
  });

  it("sends whole numbers in params as INTEGER, so LIMIT $n runs", async () => {
    const limited = await post(offline, "/api/v1/cypher", {
      query: "UNWIND range(1, 10) AS i RETURN i LIMIT $n",
      params: { n: 2 },
    });
    expect(limited.status).toBe(200);
    expect(((await limited.json()) as { rows: unknown[] }).rows).toEqual([{ i: 1 }, { i: 2 }]);
  });

  it("words a timeout for the API: the request's timeoutMs, not a CLI flag", async () => {
    const slow = await post(offline, "/api/v1/cypher", {
      query: "UNWIND range(1, 1000000000) AS i RETURN sum(i) AS total",
      timeoutMs: 50,
    });
    expect(slow.status).toBe(504);
    const { error } = (await json(slow)) as { error: { code: string; message: string } };
    expect(error.code).toBe("query_timeout");
    expect(error.message).toContain("send a larger timeoutMs in the request body");
    expect(error.message).not.toContain("--timeout");
  });

  describe("with a chat model", () => {
    let model: ScriptedServer;
    let withModel: Running;
    const answerPrompts: string[] = [];

    beforeAll(async () => {
      if (!liveNeo4j) return;
      model = await startScriptedOpenAI({
        chat: scriptByStage({
          text2cypher: (call) => ({ content: text2CypherReply(lastUserMessage(call)) }),
          answer: (call) => {
            answerPrompts.push(lastUserMessage(call));
            return { content: "Counted from the rows." };
          },
        }),
      });
      withModel = await startServer({
        workspaces: [folder],
        env: {
          ...neo4jEnv(),
          KGRAG_LLM_BASE_URL: model.baseURL,
          KGRAG_LLM_API_KEY: "k",
          KGRAG_LLM_MODEL: "scripted",
        },
      });
    });

    afterAll(async () => {
      await withModel?.stop();
      await model?.close();
    });

    it("answers Text2Cypher with the model's validated query, run read-only on the workspace", async () => {
      const response = await post(withModel, "/api/v1/cypher/ask", {
        question: "How many entities are there?",
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        cypher: string;
        validation: { ok: boolean };
        rows: { entities: number }[];
        answer: string;
      };
      const direct = await driver.executeQuery(COUNT_ENTITIES, { workspace: basename(folder) });
      const stored = Number(direct.records[0]?.get("entities"));
      expect(stored).toBeGreaterThan(0);
      expect(body.validation.ok).toBe(true);
      expect(body.cypher).toContain("count(e)");
      expect(body.rows).toEqual([{ entities: stored }]);
      expect(body.answer).toBe("Counted from the rows.");
      expect(model.count("text2cypher")).toBe(1);
      // The answer was written from the rows the database returned.
      expect(answerPrompts.at(-1)).toContain(String(stored));
    });

    it("gives a query Neo4j fails at run time a correction round, and lists the failed run", async () => {
      const response = await post(withModel, "/api/v1/cypher/ask", { question: "What is the entity ratio?" });
      expect(response.status).toBe(200);
      const body = (await json(response)) as AskReply;
      expect(body).toMatchObject({ cypher: COUNT_ENTITIES, executed: true, attempts: 2 });
      expect(body.validation).toEqual({ ok: true, messages: [] });
      expect(body.failedAttempts).toEqual([
        { cypher: DIVIDE_BY_ZERO, stage: "run", errors: [expect.stringMatching(/by zero/)] },
      ]);
    });

    it("reports a query that still fails at run time as not ok, with Neo4j's message", async () => {
      const response = await post(withModel, "/api/v1/cypher/ask", { question: "Divide always?" });
      const body = (await json(response)) as AskReply;
      expect(body).toMatchObject({ cypher: DIVIDE_BY_ZERO, executed: false, attempts: 2 });
      expect(body.validation.ok).toBe(false);
      expect(body.validation.messages.join()).toMatch(/by zero/);
      expect(body.failedAttempts.map((a) => a.stage)).toEqual(["run", "run"]);
    });

    it("tells a chat turn's attempts and validation as /cypher/ask does", async () => {
      const session = (await json(await post(withModel, "/api/v1/chat/sessions", {}))) as { id: string };
      const response = await post(withModel, `/api/v1/chat/sessions/${session.id}/messages`, {
        message: "What is the entity ratio?",
      });
      expect(response.status).toBe(200);
      const body = (await json(response)) as AskReply & { route: string };
      expect(body).toMatchObject({ route: "cypher", cypher: COUNT_ENTITIES, attempts: 2 });
      expect(body.validation).toEqual({ ok: true, messages: [] });
      expect(body.failedAttempts).toEqual([
        { cypher: DIVIDE_BY_ZERO, stage: "run", errors: [expect.stringMatching(/by zero/)] },
      ]);
    });
  });
});
