import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import { EmbeddingMismatchError } from "../../src/workspace/embedding-guard.js";
import { openServices } from "../../src/workspace/open-services.js";
import { type ScriptedServer, startScriptedOpenAI } from "../support/scripted-openai-server.js";

let server: ScriptedServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A workspace whose first writer recorded embedding model `model` at `dimension`. */
async function workspaceBuiltWith(model: string, dimension: number): Promise<string> {
  const workspace = mkdtempSync(join(tmpdir(), "kgrag-embedding-model-"));
  const store = await openSqliteStore(workspace);
  await store.setMeta("embedding.model", model);
  await store.setMeta("embedding.dimension", String(dimension));
  await store.setMeta("embedding.kind", "openai");
  await store.close();
  return workspace;
}

function open(workspace: string, model: string) {
  if (!server) throw new Error("no server");
  return openServices({
    env: {},
    config: { workspace, embedding: { model, baseURL: server.baseURL, apiKey: "k" } },
  });
}

describe("opening a workspace with a configured embedding model and no dimension", () => {
  it("takes the recorded dimension of the same model without a probe request", async () => {
    server = await startScriptedOpenAI({ embeddingDimension: 24 });
    dir = await workspaceBuiltWith("emb", 24);
    const services = await open(dir, "emb");
    expect(services.embedder.dimension).toBe(24);
    expect(server.requests).toHaveLength(0);
    // Only a configured dimension is sent as the request's `dimensions`.
    await services.embedder.embed(["a passage"]);
    expect(server.requests.map((r) => "dimensions" in r.body)).toEqual([false]);
    await services.store.close();
  });

  it("refuses another model by its name, before any request", async () => {
    server = await startScriptedOpenAI({ embeddingDimension: 24 });
    dir = await workspaceBuiltWith("emb", 24);
    const opening = open(dir, "other-emb");
    await expect(opening).rejects.toBeInstanceOf(EmbeddingMismatchError);
    await expect(open(dir, "other-emb")).rejects.toThrow(
      /indexed with embedding model "emb" \(dimension 24\), but the configured one is "other-emb"\. /,
    );
    expect(server.requests).toHaveLength(0);
  });
});
