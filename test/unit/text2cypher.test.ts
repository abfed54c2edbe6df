import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { CypherChatSession } from "../../src/cypher/chat-session.js";
import { NO_DATA_ANSWER } from "../../src/cypher/cypher-answer.js";
import { text2CypherSetup } from "../../src/cypher/live-cypher.js";
import { CypherQueryError, CypherTimeout } from "../../src/cypher/run-cypher.js";
import { parseGraphSchema } from "../../src/cypher/schema.js";
import { answerWithCypher, type CypherExecutor } from "../../src/cypher/text2cypher.js";
import { validateCypher } from "../../src/cypher/validator.js";
import type { ChatModel, ChatRequest, ChatResponse, Stage } from "../../src/llm/chat-model.js";
import { packagePath } from "../../src/util/paths.js";

const schema = parseGraphSchema(
  JSON.parse(readFileSync(packagePath("bench/fixtures/movies-schema.json"), "utf8")),
);

/** A chat model that replies from a script per stage and keeps every request it got. */
class ScriptedChat implements ChatModel {
  readonly model = "scripted";
  readonly requests: ChatRequest[] = [];
  constructor(private readonly script: Partial<Record<Stage, string[]>>) {}

  async chat(request: ChatRequest): Promise<ChatResponse> {
    this.requests.push(request);
    const reply = this.script[request.stage]?.shift();
    if (reply === undefined) throw new Error(`no scripted reply left for stage ${request.stage}`);
    return { text: reply, usage: { promptTokens: 0, completionTokens: 0 }, cached: false };
  }

  prompts(stage: Stage): string[] {
    return this.requests
      .filter((r) => r.stage === stage)
      .map((r) => r.messages.map((m) => m.content).join("\n"));
  }
}

/** Recorded rows per query; the spy also proves every query it ran was valid and read-only. */
function recordedExecutor(rows: Record<string, Record<string, unknown>[]>) {
  return vi.fn<CypherExecutor>(async (cypher) => {
    const check = validateCypher(cypher, schema);
    if (!check.valid || !check.readOnly) throw new Error(`unvalidated query reached the database: ${cypher}`);
    return { rows: rows[cypher] ?? [] };
  });
}

const MATRIX_CAST = "MATCH (p:Person)-[:ACTED_IN]->(m:Movie {title: 'The Matrix'}) RETURN p.name AS actor";

describe("answerWithCypher", () => {
  it("generates, validates, executes with the limits and answers from the rows, showing the Cypher", async () => {
    const chat = new ScriptedChat({
      text2cypher: [`Here you go:\n\`\`\`cypher\n${MATRIX_CAST};\n\`\`\`\nThis lists the cast.`],
      answer: ["Keanu Reeves and Carrie-Anne Moss acted in The Matrix."],
    });
    const execute = recordedExecutor({
      [MATRIX_CAST]: [{ actor: "Keanu Reeves" }, { actor: "Carrie-Anne Moss" }],
    });
    const result = await answerWithCypher("Who acted in The Matrix?", { chat, schema, execute });
    expect(result).toMatchObject({
      question: "Who acted in The Matrix?",
      cypher: MATRIX_CAST,
      valid: true,
      errors: [],
      attempts: 1,
      rows: [{ actor: "Keanu Reeves" }, { actor: "Carrie-Anne Moss" }],
      answer: "Keanu Reeves and Carrie-Anne Moss acted in The Matrix.",
    });
    expect(execute).toHaveBeenCalledWith(MATRIX_CAST, { timeoutMs: 10_000, maxRows: 100 }, {});
    const generation = chat.prompts("text2cypher")[0] ?? "";
    expect(generation).toContain("(:Person)-[:ACTED_IN {roles: LIST<STRING>}]->(:Movie)");
    expect(generation).toContain("Question: Who acted in The Matrix?");
    const answerPrompt = chat.prompts("answer")[0] ?? "";
    expect(answerPrompt).toContain(MATRIX_CAST);
    expect(answerPrompt).toContain('{"actor":"Keanu Reeves"}');
    expect(answerPrompt).toContain("2 rows in all");
  });

  it("corrects an invalid first attempt with the validator's errors", async () => {
    const wrong = "MATCH (m:Movie {title: 'The Matrix'})-[:ACTED_IN]->(p:Person) RETURN p.name AS actor";
    const chat = new ScriptedChat({ text2cypher: [wrong, MATRIX_CAST], answer: ["Keanu Reeves."] });
    const execute = recordedExecutor({ [MATRIX_CAST]: [{ actor: "Keanu Reeves" }] });
    const result = await answerWithCypher("Who acted in The Matrix?", { chat, schema, execute });
    expect(result).toMatchObject({ cypher: MATRIX_CAST, valid: true, attempts: 2, answer: "Keanu Reeves." });
    const fix = chat.prompts("text2cypher")[1] ?? "";
    expect(fix).toContain(wrong);
    expect(fix).toMatch(/- Wrong relationship direction .*\(:Movie\)-\[:ACTED_IN\]->\(:Person\)/);
    expect(execute).toHaveBeenCalledTimes(1);
    // The LLM cache is told not to keep the rejected reply, so asking again does not replay it.
    const accept = chat.requests[0]?.acceptAnswer;
    expect(accept?.(wrong)).toBe(false);
    expect(accept?.(`\`\`\`cypher\n${MATRIX_CAST}\n\`\`\``)).toBe(true);
    expect(accept?.("NO_CYPHER: not a lookup")).toBe(true);
  });

  it("does not execute a query that is still invalid after the correction rounds", async () => {
    const chat = new ScriptedChat({
      text2cypher: [
        "MATCH (f:Film) RETURN f.title",
        "MATCH (f:Film) RETURN f.name",
        "MATCH (f:Flim) RETURN f",
      ],
    });
    const execute = recordedExecutor({});
    const result = await answerWithCypher("List films", { chat, schema, execute }, { maxCorrections: 2 });
    expect(result).toMatchObject({ valid: false, attempts: 3, rows: [], cypher: "MATCH (f:Flim) RETURN f" });
    expect(result.errors[0]).toMatch(/Unknown label :Flim/);
    expect(result.answer).toMatch(/^No answer: the generated Cypher was rejected and not run/);
    expect(execute).not.toHaveBeenCalled();
    expect(chat.prompts("answer")).toEqual([]);
  });

  it("never executes a write, whatever the model insists on", async () => {
    const chat = new ScriptedChat({
      text2cypher: ["MATCH (p:Person) DETACH DELETE p", "MATCH (p:Person) SET p.name = 'x' RETURN p.name"],
    });
    const execute = recordedExecutor({});
    const result = await answerWithCypher("Delete everyone", { chat, schema, execute });
    expect(result.valid).toBe(false);
    expect(result.errors.join()).toMatch(/SET writes/);
    expect(execute).not.toHaveBeenCalled();
  });

  it("says plainly that there is no matching data, without asking the model", async () => {
    const query = "MATCH (p:Person {name: 'Nobody'})-[:ACTED_IN]->(m:Movie) RETURN m.title AS movie";
    const chat = new ScriptedChat({ text2cypher: [query] });
    const result = await answerWithCypher("What did Nobody act in?", {
      chat,
      schema,
      execute: recordedExecutor({}),
    });
    expect(result).toMatchObject({ valid: true, rows: [], answer: NO_DATA_ANSWER });
    expect(chat.prompts("answer")).toEqual([]);
  });

  it("caps the rows and tells the answer prompt the result was cut", async () => {
    const query = "MATCH (m:Movie) RETURN m.title AS title";
    const many = Array.from({ length: 8 }, (_, i) => ({ title: `Movie ${i}` }));
    const chat = new ScriptedChat({ text2cypher: [query], answer: ["Eight or more movies."] });
    const result = await answerWithCypher(
      "List movies",
      { chat, schema, execute: recordedExecutor({ [query]: many }) },
      { maxRows: 5, timeoutMs: 2000 },
    );
    expect(result.rows).toHaveLength(5);
    expect(result.truncated).toBe(true);
    expect(chat.prompts("answer")[0]).toContain("the row cap cut off the rest");
  });

  it("reports an execution failure instead of an answer", async () => {
    const chat = new ScriptedChat({ text2cypher: [MATRIX_CAST] });
    const execute = vi.fn<CypherExecutor>(async () => {
      throw new Error("The transaction has been terminated (timeout 10000 ms)");
    });
    const result = await answerWithCypher("Who acted in The Matrix?", { chat, schema, execute });
    expect(result.valid).toBe(true);
    expect(result.errors).toEqual([
      "The query failed when it ran: The transaction has been terminated (timeout 10000 ms)",
    ]);
    expect(result.answer).toMatch(/^No answer: /);
  });

  it("gives a timeout no correction round: a rewrite would not make the server faster", async () => {
    const chat = new ScriptedChat({ text2cypher: [MATRIX_CAST] });
    const execute = vi.fn<CypherExecutor>(async () => {
      throw new CypherTimeout(10_000);
    });
    const result = await answerWithCypher("Who acted in The Matrix?", { chat, schema, execute });
    expect(result).toMatchObject({ attempts: 1, executed: false });
    expect(result.failedAttempts).toEqual([
      { cypher: MATRIX_CAST, stage: "run", errors: [expect.stringMatching(/time limit/)] },
    ]);
    expect(execute).toHaveBeenCalledTimes(1);
  });

  it("gives a query Neo4j fails at run time a correction round with Neo4j's message", async () => {
    const divides = "MATCH (m:Movie) RETURN m.title AS title, m.released / 0 AS ratio";
    const fixed = "MATCH (m:Movie) RETURN m.title AS title, m.released AS released";
    const chat = new ScriptedChat({ text2cypher: [divides, fixed], answer: ["The Matrix, 1999."] });
    const execute = vi.fn<CypherExecutor>(async (cypher) => {
      if (cypher === divides)
        throw new CypherQueryError("/ by zero", "Neo.ClientError.Statement.ArithmeticError");
      return { rows: [{ title: "The Matrix", released: 1999 }] };
    });
    const result = await answerWithCypher("List movies", { chat, schema, execute });
    expect(result).toMatchObject({
      cypher: fixed,
      valid: true,
      executed: true,
      errors: [],
      attempts: 2,
      answer: "The Matrix, 1999.",
      failedAttempts: [
        { cypher: divides, stage: "run", errors: ["The query failed when it ran: / by zero"] },
      ],
    });
    const fix = chat.prompts("text2cypher")[1] ?? "";
    expect(fix).toContain("failed when Neo4j ran it");
    expect(fix).toContain(divides);
    expect(fix).toContain("- / by zero");
  });

  it("reports a run failure after the correction rounds are spent, listing every failed query", async () => {
    const wrong = "MATCH (m:Movie {title: 'The Matrix'})-[:ACTED_IN]->(p:Person) RETURN p.name AS actor";
    const chat = new ScriptedChat({ text2cypher: [wrong, MATRIX_CAST] });
    const execute = vi.fn<CypherExecutor>(async () => {
      throw new CypherQueryError("Type mismatch", "Neo.ClientError.Statement.TypeError");
    });
    const result = await answerWithCypher("Who acted in The Matrix?", { chat, schema, execute });
    expect(result).toMatchObject({ cypher: MATRIX_CAST, valid: true, executed: false, attempts: 2 });
    expect(result.failedAttempts.map((a) => [a.cypher, a.stage])).toEqual([
      [wrong, "validation"],
      [MATRIX_CAST, "run"],
    ]);
    expect(result.errors).toEqual(["The query failed when it ran: Type mismatch"]);
    expect(execute).toHaveBeenCalledTimes(1);
  });

  it("lets queries use only the parameters it supplies, and hands their values to the executor", async () => {
    const scoped = "MATCH (p:Person {name: $person})-[:ACTED_IN]->(m:Movie) RETURN m.title AS movie";
    const chat = new ScriptedChat({
      text2cypher: ["MATCH (m:Movie {title: $title}) RETURN m.released", scoped],
      answer: ["Cast Away."],
    });
    const execute = vi.fn<CypherExecutor>(async () => ({ rows: [{ movie: "Cast Away" }] }));
    const result = await answerWithCypher(
      "What did Tom Hanks act in?",
      { chat, schema, execute },
      { parameters: { person: "Tom Hanks" } },
    );
    expect(result).toMatchObject({ cypher: scoped, attempts: 2 });
    expect(chat.prompts("text2cypher")[1]).toMatch(/Parameter \$title is not defined/);
    expect(execute).toHaveBeenCalledWith(scoped, expect.anything(), { person: "Tom Hanks" });
  });

  it("passes the model's NO_CYPHER signal through without running anything", async () => {
    const chat = new ScriptedChat({ text2cypher: ["NO_CYPHER: opinions are not stored"] });
    const execute = recordedExecutor({});
    const result = await answerWithCypher("Is The Matrix good?", { chat, schema, execute });
    expect(result).toMatchObject({ cypher: null, valid: false, noCypherReason: "opinions are not stored" });
    expect(execute).not.toHaveBeenCalled();
  });

  it("runs a model's call to a procedure the user allows (neo4j.readOnlyProcedures), as kgrag cypher does", async () => {
    const call = "CALL apoc.meta.stats() YIELD labels RETURN labels";
    const ask = (allowProcedures: string[]) => {
      const { options } = text2CypherSetup(schema, { allowProcedures });
      const chat = new ScriptedChat({ text2cypher: [call, call], answer: ["Counts per label."] });
      const execute = vi.fn<CypherExecutor>(async () => ({ rows: [{ labels: { Movie: 38 } }] }));
      return {
        execute,
        answer: answerWithCypher("How many nodes per label?", { chat, schema, execute }, options),
      };
    };
    const allowed = ask(["apoc.meta.stats"]);
    expect(await allowed.answer).toMatchObject({ valid: true, executed: true, answer: "Counts per label." });
    expect(allowed.execute).toHaveBeenCalledWith(call, expect.anything(), {});

    const unlisted = ask([]);
    const refused = await unlisted.answer;
    expect(refused).toMatchObject({ valid: false, executed: false });
    expect(refused.errors.join("\n")).toMatch(/apoc\.meta\.stats/);
    expect(unlisted.execute).not.toHaveBeenCalled();
  });
});

describe("CypherChatSession", () => {
  it("resolves a follow-up from the earlier question, Cypher and rows", async () => {
    const directors =
      "MATCH (d:Person)-[:DIRECTED]->(m:Movie {title: 'The Matrix'}) RETURN d.name AS director";
    const chat = new ScriptedChat({
      text2cypher: [MATRIX_CAST, directors],
      answer: ["Keanu Reeves.", "Lana and Lilly Wachowski."],
    });
    const execute = recordedExecutor({
      [MATRIX_CAST]: [{ actor: "Keanu Reeves" }],
      [directors]: [{ director: "Lana Wachowski" }, { director: "Lilly Wachowski" }],
    });
    const session = new CypherChatSession({ chat, schema, execute });
    await session.ask("Who acted in The Matrix?");
    const turn = await session.ask("And who directed it?");
    expect(turn).toMatchObject({ route: "cypher", answer: "Lana and Lilly Wachowski." });
    expect(turn.cypherResult?.cypher).toBe(directors);
    const followUp = chat.prompts("text2cypher")[1] ?? "";
    expect(followUp).toContain("Turn 1 question: Who acted in The Matrix?");
    expect(followUp).toContain(MATRIX_CAST);
    expect(followUp).toContain('{"actor":"Keanu Reeves"}');
    expect(followUp).toContain("Question: And who directed it?");
    expect(chat.prompts("text2cypher")[0]).toContain("Earlier turns of this conversation:\nnone");
  });

  it("routes a theme question to the GraphRAG modes and says so", async () => {
    const chat = new ScriptedChat({});
    const ragAnswer = vi.fn(async () => "Mostly science fiction and redemption.");
    const execute = recordedExecutor({});
    const session = new CypherChatSession({ chat, schema, execute, ragAnswer });
    const turn = await session.ask("What are the main themes of these movies?");
    expect(turn.route).toBe("rag");
    expect(turn.answer).toMatch(/^\(Answered by the GraphRAG query modes, not Cypher: .*themes or summaries/);
    expect(turn.answer).toContain("Mostly science fiction and redemption.");
    expect(ragAnswer).toHaveBeenCalledWith("What are the main themes of these movies?");
    expect(chat.requests).toEqual([]);
    expect(execute).not.toHaveBeenCalled();
  });

  it("falls back to GraphRAG when the model says Cypher cannot answer", async () => {
    const chat = new ScriptedChat({ text2cypher: ["NO_CYPHER: needs reading the reviews"] });
    const session = new CypherChatSession({
      chat,
      schema,
      execute: recordedExecutor({}),
      ragAnswer: async () => "Critics praised its effects.",
    });
    const turn = await session.ask("How did critics feel about The Matrix?");
    expect(turn.route).toBe("rag");
    expect(turn.answer).toMatch(/the model found no Cypher query for it \(needs reading the reviews\)/);
    expect(turn.cypherResult?.noCypherReason).toBe("needs reading the reviews");
  });

  it("says it cannot answer a theme question when no GraphRAG mode is wired", async () => {
    const session = new CypherChatSession({
      chat: new ScriptedChat({}),
      schema,
      execute: recordedExecutor({}),
    });
    const turn = await session.ask("Give me a summary of the collection");
    expect(turn.answer).toMatch(/^Not answered: .*no GraphRAG query mode is available/);
  });
});
