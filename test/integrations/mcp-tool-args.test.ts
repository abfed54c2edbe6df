import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKgrag, type Kgrag } from "../../src/index.js";
import { createKgragMcpServer } from "../../src/integrations/mcp/kgrag-mcp-server.js";
import type { CommunityRecord } from "../../src/types.js";

let dir: string;
let kg: Kgrag;
let client: Client;

/** A report as the LLM writes one: its summary cites entity and relationship ids of its context. */
const COMMUNITY: CommunityRecord = {
  id: "c0-lumen",
  level: 0,
  parentId: null,
  childIds: [],
  entityKeys: ["mara okafor", "lumen robotics"],
  contentHash: "h",
  reportHash: "h",
  report: {
    title: "Lumen Robotics and its founder",
    summary: "Mara Okafor founded Lumen Robotics [E:1, R:2]. It builds drones [E:2; E:9].",
    rating: 5,
    ratingExplanation: "",
    findings: [],
    method: "llm",
    markdown: [
      "# Lumen Robotics and its founder",
      "",
      "Mara Okafor founded Lumen Robotics [E:1, R:2]. It builds drones [E:2; E:9].",
      "",
      "## References",
      "",
      "- [E:1] Mara Okafor",
      "- [R:2] Mara Okafor — Lumen Robotics",
      "- [E:2] Lumen Robotics",
      "",
    ].join("\n"),
  },
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kgrag-mcp-args-"));
  kg = await createKgrag({ env: {}, config: { workspace: dir } });
  await kg.index([{ id: "lumen", title: "Lumen", text: "Mara Okafor founded Lumen Robotics in Lisbon." }], {
    communities: false,
  });
  await kg.services.store.replaceCommunities([COMMUNITY]);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createKgragMcpServer(kg).connect(serverSide);
  client = new Client({ name: "test", version: "0" });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client?.close();
  await kg?.close();
  rmSync(dir, { recursive: true, force: true });
});

function textOf(result: Awaited<ReturnType<Client["callTool"]>>): string {
  return (result.content as { text: string }[])[0]?.text ?? "";
}

describe("the MCP tools' arguments and answers", () => {
  it("query refuses an argument it does not take, naming the one meant, as the library does", async () => {
    const result = await client.callTool({
      name: "query",
      arguments: { question: "Who founded Lumen Robotics?", mdoe: "naive", topK: 3 },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/Unknown query tool arguments "mdoe" \(did you mean "mode"\?\), "topK"/);
    const tools = (await client.listTools()).tools;
    expect(tools.find((t) => t.name === "query")?.inputSchema.additionalProperties).toBe(false);
  });

  it("the graph tools refuse an unknown argument naming the one meant, as query does", async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      [
        "search_entities",
        { query: "Lumen" },
        /Unknown search_entities tool argument "query" \(did you mean "text"\?\)\. Known arguments: text, limit\./,
      ],
      [
        "search_entities",
        { text: "Lumen", limt: 2 },
        /search_entities tool argument "limt" \(did you mean "limit"\?\)/,
      ],
      ["get_entity", { entity: "Lumen" }, /get_entity tool argument "entity" \(did you mean "name"\?\)/],
      [
        "neighbourhood",
        { name: "Lumen", hops: 2 },
        /neighbourhood tool argument "hops" \(did you mean "depth"\?\)/,
      ],
      ["communities", { levle: 0 }, /communities tool argument "levle" \(did you mean "level"\?\)/],
    ];
    for (const [name, args, message] of cases) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, name).toBe(true);
      expect(textOf(result)).toMatch(message);
    }
    const tools = (await client.listTools()).tools;
    for (const name of ["search_entities", "get_entity", "neighbourhood", "communities"])
      expect(tools.find((t) => t.name === name)?.inputSchema.additionalProperties, name).toBe(false);
  });

  it("search_entities still answers with the arguments it knows", async () => {
    const result = await client.callTool({ name: "search_entities", arguments: { text: "Lumen", limit: 2 } });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result)).entities.length).toBeGreaterThan(0);
  });

  it("query still answers with the arguments it knows", async () => {
    const result = await client.callTool({
      name: "query",
      arguments: { question: "Who founded Lumen Robotics?", mode: "naive" },
    });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result)).mode).toBe("naive");
  });

  it("communities shows a summary's citation ids as the names they stand for, dropping unknown ones", async () => {
    const result = await client.callTool({ name: "communities", arguments: {} });
    const { communities } = JSON.parse(textOf(result)) as { communities: { summary: string }[] };
    expect(communities[0]?.summary).toBe(
      "Mara Okafor founded Lumen Robotics [Mara Okafor; Mara Okafor — Lumen Robotics]. " +
        "It builds drones [Lumen Robotics].",
    );
  });
});
