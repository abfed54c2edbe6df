import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { packagePath } from "../../src/util/paths.js";
import { countTokens } from "../../src/util/tokens.js";
import { runMain } from "../support/cli-in-process.js";
import { plausibleReplies } from "../support/plausible-replies.js";
import { type ScriptedServer, startScriptedOpenAI } from "../support/scripted-openai-server.js";

const PASSAGE = /Passage:\n"""\n([\s\S]*)\n"""/;

let server: ScriptedServer;
let dir: string;

beforeEach(async () => {
  server = await startScriptedOpenAI({ chat: plausibleReplies });
  dir = mkdtempSync(join(tmpdir(), "kgrag-config-run-"));
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The settings of a config file reach the run: what the models are sent shows them. */
describe("kgrag index with a config file", () => {
  it("chunks, extracts and embeds as the file says", async () => {
    const file = join(dir, "kgrag.config.json");
    writeFileSync(
      file,
      JSON.stringify({
        workspace: "ws",
        llm: { baseURL: server.baseURL, model: "scripted" },
        embedding: { baseURL: server.baseURL, model: "scripted-embed", dimension: 64, batchSize: 3 },
        chunking: { size: 120, overlap: 10 },
        extraction: { entityTypes: ["starship", "harbour"], language: "French", gleaning: 0 },
        community: { enabled: false },
      }),
    );
    const result = await runMain(["--config", file, "index", packagePath("docs", "lifecycle.md")]);
    expect(result.code, result.stderr).toBe(0);

    const extracts = server.requests.filter((r) => r.stage === "extract");
    expect(extracts.length).toBeGreaterThan(3);
    for (const request of extracts) {
      const prompt = (request.body.messages as { content: string }[])[0]?.content ?? "";
      expect(prompt).toContain("starship, harbour");
      expect(prompt).toContain("Write every description and keyword in French");
      expect(countTokens(PASSAGE.exec(prompt)?.[1] ?? "")).toBeLessThanOrEqual(120);
      expect(request.body.model).toBe("scripted");
    }
    expect(server.count("glean")).toBe(0);

    const embeddings = server.requests.filter((r) => r.path === "/v1/embeddings");
    expect(embeddings.length).toBeGreaterThan(0);
    for (const request of embeddings) {
      expect(request.body.model).toBe("scripted-embed");
      expect((request.body.input as string[]).length).toBeLessThanOrEqual(3);
    }
  });
});
