import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKgrag } from "../../src/index.js";
import { childEnv, cliArgs, REPO_ROOT } from "../support/cli-child.js";

const DOCUMENTS = [
  {
    id: "lumen",
    title: "Lumen Robotics",
    text:
      "Lumen Robotics was founded by Mara Okafor in Lisbon in 2015. Lumen Robotics builds harbour " +
      "inspection drones. Mara Okafor studied engineering at the University of Porto.",
  },
  {
    id: "tidewell",
    title: "Tidewell Harbour",
    text:
      "Tidewell Harbour bought twelve drones from Lumen Robotics in 2021. Jonas Brandt, the harbour " +
      "master of Tidewell Harbour, praised the drones.",
  },
];

let workspace: string;
let client: Client;

/** The text of a tool's answer, parsed as the JSON it carries. */
async function call<T>(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; body: T }> {
  const result = await client.callTool({ name, arguments: args });
  const [first] = result.content as { type: string; text: string }[];
  const text = first?.text ?? "";
  return { isError: result.isError === true, body: (result.isError ? text : JSON.parse(text)) as T };
}

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), "kgrag-mcp-"));
  const kg = await createKgrag({ env: {}, config: { workspace } });
  await kg.index(DOCUMENTS);
  await kg.close();
  client = new Client({ name: "kgrag-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: cliArgs(["mcp", "--workspace", workspace]),
      cwd: REPO_ROOT,
      env: childEnv() as Record<string, string>,
      stderr: "pipe",
    }),
  );
}, 60_000);

afterAll(async () => {
  await client?.close();
  await rm(workspace, { recursive: true, force: true });
});

describe("kgrag mcp (the SDK's client spawning the CLI over stdio)", () => {
  it("lists the read-only tools of an embedded workspace, without the Neo4j-only ones", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "communities",
      "get_entity",
      "neighbourhood",
      "query",
      "search_entities",
    ]);
    const query = tools.find((t) => t.name === "query");
    expect(Object.keys(query?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(["question", "mode", "docIds", "metadata"]),
    );
  });

  it("answers a query with numbered sources, and keeps to the scope it is given", async () => {
    const { body } = await call<{
      mode: string;
      answer: string;
      sources: { n: number; docId: string; text: string }[];
    }>("query", { question: "Who founded Lumen Robotics?", mode: "naive" });
    expect(body.mode).toBe("naive");
    expect(body.answer).toContain("Mara Okafor");
    expect(body.sources[0]).toMatchObject({ n: 1, docId: "lumen" });
    expect(body.sources[0]?.text).toContain("founded by Mara Okafor");

    const scoped = await call<{ sources: { docId: string }[] }>("query", {
      question: "Who founded Lumen Robotics?",
      mode: "mix",
      docIds: ["tidewell"],
    });
    expect(scoped.body.sources.length).toBeGreaterThan(0);
    expect(new Set(scoped.body.sources.map((s) => s.docId))).toEqual(new Set(["tidewell"]));
  });

  it("finds entities, shows one with the passages that mention it, and its neighbourhood", async () => {
    const search = await call<{ entities: { name: string }[] }>("search_entities", {
      text: "Lumen Robotics",
    });
    expect(search.body.entities[0]?.name).toBe("Lumen Robotics");

    const entity = await call<{ name: string; passages: { docId: string; text: string }[] }>("get_entity", {
      name: "lumen robotics",
    });
    expect(entity.body.name).toBe("Lumen Robotics");
    expect(entity.body.passages.map((p) => p.docId).sort()).toEqual(["lumen", "tidewell"]);

    const around = await call<{ center: string; entities: { name: string }[] }>("neighbourhood", {
      name: "Lumen Robotics",
    });
    expect(around.body.center).toBe("Lumen Robotics");
    expect(around.body.entities.map((e) => e.name)).toContain("Mara Okafor");
  });

  it("lists communities with their reports, and says when an entity does not exist", async () => {
    const { body } = await call<{ communities: { id: string; title: string | null }[] }>("communities", {});
    expect(body.communities.length).toBeGreaterThan(0);
    expect(body.communities.every((c) => c.title)).toBe(true);

    const missing = await call<string>("get_entity", { name: "Zebulon Quarrington" });
    expect(missing.isError).toBe(true);
  });
});
