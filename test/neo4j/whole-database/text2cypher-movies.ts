import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Driver } from "neo4j-driver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { splitStatements } from "../../../src/cypher/cypher-files.js";
import { recordToPlain } from "../../../src/storage/neo4j/record-mapping.js";
import { childEnv, cliArgs, REPO_ROOT } from "../../support/cli-child.js";
import { runMain } from "../../support/cli-in-process.js";
import { databaseCounts, liveDriver, liveNeo4j, skipReason, useNeo4jEnv } from "../../support/live-neo4j.js";
import {
  type ChatCall,
  lastUserMessage,
  type ScriptedServer,
  scriptByStage,
  startScriptedOpenAI,
} from "../../support/scripted-openai-server.js";

/**
 * Text2Cypher end to end on a live Neo4j: a graph kgrag did not build (a small movies graph, asked
 * with --external) and kgrag's own workspace graph, with a scripted model on 127.0.0.1.
 */
const fixture = `movies-${randomUUID()}`;
const GOLD =
  "MATCH (p:Person)-[:DIRECTED]->(m:Movie {title: 'The Matrix'}) RETURN p.name AS director ORDER BY director";

describe.skipIf(!liveNeo4j)(`Text2Cypher on a live Neo4j (${liveNeo4j ? "live" : skipReason})`, () => {
  let driver: Driver;
  let server: ScriptedServer;
  let root: string;
  /** What the text2cypher stage answers next, by question. */
  let writeCypher: (call: ChatCall) => string;

  const ask = (question: string, ...args: string[]) =>
    runMain(["ask", question, "--external", "--json", "--workspace", join(root, "ws"), ...args]);
  const askJson = async (question: string) => {
    const result = await ask(question);
    return { code: result.code, ...JSON.parse(result.stdout || "{}") } as {
      code: number;
      cypher: string;
      valid: boolean;
      errors: string[];
      attempts: number;
      rows: Record<string, unknown>[];
      answer: string;
    };
  };
  const fixtureRows = async (cypher: string) =>
    (await driver.executeQuery(cypher)).records.map((r) => recordToPlain(r));

  beforeAll(async () => {
    if (!liveNeo4j) return;
    useNeo4jEnv(liveNeo4j);
    driver = liveDriver(liveNeo4j);
    const script = readFileSync(join(REPO_ROOT, "test/fixtures/movies-mini.cypher"), "utf8");
    for (const statement of splitStatements(script)) await driver.executeQuery(statement, { fixture });
    server = await startScriptedOpenAI({
      chat: scriptByStage({
        text2cypher: (call) => ({ content: writeCypher(call) }),
        answer: { content: "Lana Wachowski and Lilly Wachowski directed The Matrix." },
      }),
    });
    process.env.KGRAG_LLM_MODEL = "scripted";
    process.env.KGRAG_LLM_BASE_URL = server.baseURL;
    process.env.KGRAG_LLM_API_KEY = "test";
    root = mkdtempSync(join(tmpdir(), "kgrag-t2c-movies-"));
  });

  afterAll(async () => {
    if (!liveNeo4j) return;
    await driver.executeQuery("MATCH (n {fixture: $fixture}) DETACH DELETE n", { fixture });
    await driver.close();
    await server.close();
    for (const name of ["KGRAG_LLM_MODEL", "KGRAG_LLM_BASE_URL", "KGRAG_LLM_API_KEY"])
      delete process.env[name];
    rmSync(root, { recursive: true, force: true });
  });

  it("reads the schema of a graph it did not build: labels, types, property types and patterns", async () => {
    const result = await runMain([
      "cypher",
      "schema",
      "--json",
      "--external",
      "--workspace",
      join(root, "ws"),
    ]);
    expect(result.code, result.stderr).toBe(0);
    const schema = JSON.parse(result.stdout);
    expect(schema.labels).toEqual(expect.arrayContaining(["Movie", "Person"]));
    expect(schema.labels).not.toContain("Entity");
    expect(schema.relationshipTypes).toEqual(
      expect.arrayContaining(["ACTED_IN", "DIRECTED", "PRODUCED", "WROTE", "REVIEWED", "FOLLOWS"]),
    );
    expect(schema.relationshipTypes).not.toContain("RELATED");
    expect(schema.nodeProperties.Movie).toMatchObject({
      title: "STRING",
      released: "INTEGER",
      tagline: "STRING",
    });
    expect(schema.nodeProperties.Person).toMatchObject({ name: "STRING", born: "INTEGER" });
    expect(schema.relationshipProperties.ACTED_IN).toMatchObject({ roles: "LIST<STRING>" });
    expect(schema.relationshipProperties.REVIEWED).toMatchObject({ summary: "STRING", rating: "INTEGER" });
    expect(schema.patterns).toEqual(
      expect.arrayContaining([
        { start: "Person", type: "ACTED_IN", end: "Movie" },
        { start: "Person", type: "DIRECTED", end: "Movie" },
        { start: "Person", type: "FOLLOWS", end: "Person" },
      ]),
    );
  });

  it("(a) runs the model's correct query read-only and returns the same rows as running it directly", async () => {
    writeCypher = () => GOLD;
    const result = await askJson("Who directed The Matrix?");
    expect(result.code).toBe(0);
    expect(result.valid).toBe(true);
    expect(result.attempts).toBe(1);
    expect(result.rows).toEqual(await fixtureRows(GOLD));
    expect(result.rows.map((r) => r.director)).toEqual(["Lana Wachowski", "Lilly Wachowski"]);
    expect(result.answer).toMatch(/Wachowski/);
  });

  it("(b) a rejected query gets one correction round with the errors, then runs", async () => {
    const broken =
      "MATCH (m:Movie)-[:DIRECTED]->(p:Person) WHERE m.title = 'The Matrix' RETURN p.name AS director";
    writeCypher = (call) => (lastUserMessage(call).includes("Rejected query") ? GOLD : broken);
    // Another wording than (a): accepted answers are cached by prompt.
    const result = await askJson("Name the directors of The Matrix.");
    expect(result.attempts).toBe(2);
    expect(result.valid).toBe(true);
    expect(result.rows.map((r) => r.director)).toEqual(["Lana Wachowski", "Lilly Wachowski"]);
    const fixes = server.requests.filter((r) => r.stage === "text2cypher").at(-1);
    expect(JSON.stringify(fixes?.body)).toMatch(/DIRECTED/);
  });

  it("(c) refuses a write query, and nothing in the database changes", async () => {
    const before = await databaseCounts(driver);
    writeCypher = () => "MATCH (m:Movie {title: 'The Matrix'}) DETACH DELETE m";
    const result = await askJson("Delete The Matrix");
    expect(result.valid).toBe(false);
    expect(result.rows).toEqual([]);
    expect(result.errors.join(" ")).toMatch(/read-only|write|DELETE/i);
    expect(await databaseCounts(driver)).toEqual(before);
  });

  it("(d) says plainly when the query returns nothing", async () => {
    writeCypher = () => "MATCH (m:Movie) WHERE m.released > 2090 RETURN m.title AS title";
    const answerCalls = server.count("answer");
    const result = await askJson("Which movies were released after 2090?");
    expect(result.valid).toBe(true);
    expect(result.rows).toEqual([]);
    expect(result.answer).toMatch(/No matching data/);
    expect(server.count("answer")).toBe(answerCalls);
  });

  it("chat resolves a follow-up from the previous turn, and routes a themes question to GraphRAG", async () => {
    const ws = join(root, `chat-${randomUUID()}`);
    // The workspace graph is indexed offline; the chat then uses the scripted model.
    const llm = ["KGRAG_LLM_MODEL", "KGRAG_LLM_BASE_URL", "KGRAG_LLM_API_KEY"] as const;
    const saved = llm.map((name) => process.env[name]);
    for (const name of llm) delete process.env[name];
    const indexed = await runMain([
      "index",
      join(REPO_ROOT, "samples/corpus/mara-quell.txt"),
      "--workspace",
      ws,
    ]);
    llm.forEach((name, i) => {
      process.env[name] = saved[i];
    });
    expect(indexed.code, indexed.stderr).toBe(0);
    writeCypher = (call) => {
      const prompt = JSON.stringify(call.body.messages);
      if (prompt.includes("And in which year was it released?") && prompt.includes("The Matrix")) {
        return "MATCH (m:Movie {title: 'The Matrix'}) RETURN m.released AS released";
      }
      return GOLD;
    };
    const chatServer = await startScriptedOpenAI({
      chat: scriptByStage({
        text2cypher: (call) => ({ content: writeCypher(call) }),
        answer: (call) => {
          const prompt = JSON.stringify(call.body.messages);
          if (prompt.includes("Retrieved material")) return { content: "The main theme is optics research." };
          return { content: lastUserMessage(call).includes("1999") ? "In 1999." : "The Wachowskis." };
        },
        "global-map": {
          content: JSON.stringify({ points: [{ description: "Optics and lens coatings [C:0]", score: 90 }] }),
        },
        "global-reduce": { content: "The main theme is optics research." },
        keywords: {
          content: JSON.stringify({
            high_level_keywords: ["optics", "lens coatings", "physics"],
            low_level_keywords: [],
          }),
        },
      }),
    });
    try {
      const turns = await runChat(
        ["chat", "--external", "--workspace", ws],
        ["Who directed The Matrix?", "And in which year was it released?"],
        chatServer.baseURL,
      );
      expect(turns.code, turns.stderr).toBe(0);
      expect(turns.stdout).toMatch(/Lana Wachowski/);
      expect(turns.stdout).toMatch(/m\.released/);
      expect(turns.stdout).toMatch(/1999/);

      const themes = await runChat(
        ["chat", "--workspace", ws],
        ["What are the main themes?"],
        chatServer.baseURL,
      );
      expect(themes.code, themes.stderr).toBe(0);
      expect(themes.stdout).toMatch(/Answered by the GraphRAG query modes/);
      expect(themes.stdout).toMatch(/optics research/);
      expect(chatServer.count("global-reduce")).toBeGreaterThan(0);
    } finally {
      await chatServer.close();
      const name = ws.split("/").pop();
      await driver.executeQuery("MATCH (n {workspace: $name}) DETACH DELETE n", { name });
    }
    // An indexing run and two chat processes: past two minutes on cores busy with other work.
  }, 300_000);
});

/** `kgrag chat` as a real process, fed its questions on standard input. */
function runChat(args: string[], questions: string[], baseURL: string) {
  const settings = liveNeo4j!;
  const child = spawn(process.execPath, cliArgs(args), {
    cwd: REPO_ROOT,
    env: childEnv({
      KGRAG_STORAGE: "neo4j",
      NEO4J_URI: settings.uri,
      NEO4J_USERNAME: settings.username,
      NEO4J_PASSWORD: settings.password,
      KGRAG_LLM_MODEL: "scripted",
      KGRAG_LLM_BASE_URL: baseURL,
      KGRAG_LLM_API_KEY: "test",
    }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  child.stdin.end(`${questions.join("\n")}\n`);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
