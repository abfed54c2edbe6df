import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import packageJson from "../../package.json" with { type: "json" };
import * as kgrag from "../../src/index.js";

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("the package entry point (import { createKgrag } from 'kgrag')", () => {
  it("is the built form of src/index.ts", () => {
    expect(packageJson.exports["."].import).toBe("./dist/src/index.js");
  });

  it("indexes, answers with passage references and refuses an unknown document id", async () => {
    const workspace = await mkdtemp(join(tmpdir(), "kgrag-library-"));
    dirs.push(workspace);
    const kg = await kgrag.createKgrag({ env: {}, config: { workspace } });
    try {
      await kg.index([
        {
          id: "lumen",
          title: "Lumen Robotics",
          path: null,
          metadata: { kind: "company" },
          text: "Lumen Robotics was founded by Mara Okafor in Lisbon in 2015.",
        },
      ]);
      const result = await kg.query("Who founded Lumen Robotics?", { mode: "mix" });
      expect(kgrag.QUERY_MODES).toContain(result.mode);
      expect(result.references[0]).toMatchObject({ n: 1, docId: "lumen", title: "Lumen Robotics" });
      await expect(kg.query("Who founded it?", { docIds: ["nope"] })).rejects.toBeInstanceOf(
        kgrag.ScopeError,
      );
    } finally {
      await kg.close();
    }
  });

  it("exports the built-in and adapter models and the Cypher validator", () => {
    expect(new kgrag.HashingEmbedder().kind).toBe("hashing");
    for (const exported of [
      kgrag.OpenAIChatModel,
      kgrag.OpenAIEmbedder,
      kgrag.LangChainChatModel,
      kgrag.LangChainEmbedder,
    ]) {
      expect(typeof exported).toBe("function");
    }
    const schema = kgrag.parseGraphSchema({
      labels: ["Person"],
      relationshipTypes: [],
      nodeProperties: { Person: { name: "STRING" } },
      relationshipProperties: {},
      patterns: [],
    });
    expect(kgrag.validateCypher("MATCH (p:Person) RETURN p.name", schema).valid).toBe(true);
  });
});
