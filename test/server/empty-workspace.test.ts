import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOTHING_INDEXED } from "../../src/query/query-engine.js";
import { type Running, removeAll, startServer, tempDir } from "../support/server.js";

/** A new user's first question, asked of a workspace `kgrag serve` has just created empty. */
const dirs: string[] = [];
let running: Running;

beforeAll(async () => {
  const dir = await tempDir("empty-workspace");
  dirs.push(dir);
  running = await startServer({ workspaces: [dir] });
}, 60_000);

afterAll(async () => {
  await running?.stop();
  await removeAll(dirs);
});

async function ask(mode: string): Promise<{ answer: string; warnings?: string[] }> {
  const response = await fetch(`${running.url}/api/v1/query`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ question: "Who founded Lumen Robotics?", mode }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { answer: string; warnings?: string[] };
}

describe("kgrag serve: a query on a workspace with nothing indexed", () => {
  it.each(["naive", "local", "global", "hybrid", "mix"])(
    "%s mode says nothing is indexed yet and how to index, not how to build community reports",
    async (mode) => {
      const result = await ask(mode);
      expect(result.warnings).toEqual([NOTHING_INDEXED]);
      expect(NOTHING_INDEXED).toContain("kgrag index PATH");
    },
  );

  it("the Ollama-compatible chat ends its answer with the same warning", async () => {
    const response = await fetch(`${running.url}/api/chat`, {
      method: "POST",
      body: JSON.stringify({
        model: "kgrag:latest",
        messages: [{ role: "user", content: "Who is Mara?" }],
        stream: false,
      }),
    });
    expect(response.status).toBe(200);
    const { message } = (await response.json()) as { message: { content: string } };
    expect(message.content).toContain(NOTHING_INDEXED);
    expect(message.content).not.toContain("community reports");
  });
});
