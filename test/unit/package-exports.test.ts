import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type {
  ContextChunk,
  CreateKgragOptions,
  HistoryMessage,
  IndexOptions,
  ProgressReporter,
  QueryContext,
  QueryContextEvent,
  QueryOptions,
  Reference,
  Reranker,
} from "../../src/index.js";
import * as kgrag from "../../src/index.js";
import { RequestTimeoutError, RetriesExhaustedError } from "../../src/llm/retry.js";
import { Neo4jWorkspaceBusyError } from "../../src/storage/neo4j/busy-error.js";
import { REPO_ROOT } from "../support/cli-child.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "kgrag-exports-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const DOCS = [
  { id: "lumen", title: "Lumen Robotics", text: "Lumen Robotics was founded by Mara Okafor in Lisbon." },
];

/** A lock on the workspace held by this (live) process, as another writer would hold it. */
function holdLock(workspace: string): void {
  const folder = join(workspace, "kgrag.lock");
  mkdirSync(folder, { recursive: true });
  const owner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  writeFileSync(join(folder, "owner.json"), JSON.stringify(owner));
}

describe("the MCP server's entry, kgrag/mcp", () => {
  it("holds createKgragMcpServer, which the main entry leaves out with the MCP SDK's DOM-typed declarations", async () => {
    expect(Object.keys(kgrag)).not.toContain("createKgragMcpServer");
    const mcp = await import("../../src/mcp.js");
    expect(Object.keys(mcp)).toEqual(["createKgragMcpServer"]);
    const packageJson = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
      exports: Record<string, { types: string; import: string }>;
    };
    expect(packageJson.exports["./mcp"]).toEqual({
      types: "./dist/src/mcp.d.ts",
      import: "./dist/src/mcp.js",
    });
  });
});

describe("the package entry exports what its callers name", () => {
  it("the types of a query's options, context and references", async () => {
    // Typed with the exported names: the type check fails when one is missing.
    const history: HistoryMessage[] = [{ role: "user", content: "Tell me about robots." }];
    const events: QueryContextEvent[] = [];
    const options: QueryOptions = { mode: "naive", history, onContext: (event) => events.push(event) };
    const kg = await kgrag.createKgrag({ env: {}, config: { workspace: dir } });
    try {
      await kg.index(DOCS, { communities: false } satisfies IndexOptions);
      const result = await kg.query("Who founded Lumen Robotics?", options);
      const context: QueryContext = result.context;
      const chunk: ContextChunk | undefined = context.chunks[0];
      const reference: Reference | undefined = result.references[0];
      expect(chunk?.docId).toBe("lumen");
      expect(reference).toMatchObject({ n: 1, docId: "lumen" });
      expect(events.map((event) => event.references)).toEqual([result.references]);
    } finally {
      await kg.close();
    }
  });

  it("the types of createKgrag's options, which the instance then uses", async () => {
    const reranker: Reranker = { model: "none", rerank: async () => [] };
    const progress: ProgressReporter = { start() {}, advance() {}, finish() {}, info() {} };
    const options: CreateKgragOptions = { env: {}, config: { workspace: dir }, reranker, progress };
    const kg = await kgrag.createKgrag(options);
    try {
      expect(kg.services.reranker).toBe(reranker);
      expect(kg.services.progress).toBe(progress);
    } finally {
      await kg.close();
    }
  });

  it("ConfigError and OptionsError, as createKgrag and query throw them", async () => {
    const untyped = { confg: {} } as CreateKgragOptions;
    await expect(kgrag.createKgrag(untyped)).rejects.toBeInstanceOf(kgrag.ConfigError);
    const kg = await kgrag.createKgrag({ env: {}, config: { workspace: dir } });
    try {
      await expect(kg.query("Who?", { topk: 3 } as QueryOptions)).rejects.toBeInstanceOf(kgrag.OptionsError);
    } finally {
      await kg.close();
    }
  });

  it("WorkspaceBusyError, as a write to a workspace another process holds throws it", async () => {
    const kg = await kgrag.createKgrag({ env: {}, config: { workspace: dir } });
    try {
      holdLock(dir);
      await expect(kg.index(DOCS)).rejects.toBeInstanceOf(kgrag.WorkspaceBusyError);
    } finally {
      rmSync(join(dir, "kgrag.lock"), { recursive: true, force: true });
      await kg.close();
    }
  });

  it("EmbeddingMismatchError, as opening a workspace with another embedding throws it", async () => {
    const kg = await kgrag.createKgrag({ env: {}, config: { workspace: dir } });
    await kg.index(DOCS, { communities: false });
    await kg.close();
    const reopening = kgrag.createKgrag({ env: {}, config: { workspace: dir, hashingDimension: 256 } });
    await expect(reopening).rejects.toBeInstanceOf(kgrag.EmbeddingMismatchError);
  });

  it("the error classes of Neo4j writers and model requests, the very ones thrown", () => {
    expect(kgrag.Neo4jWorkspaceBusyError).toBe(Neo4jWorkspaceBusyError);
    expect(kgrag.RequestTimeoutError).toBe(RequestTimeoutError);
    expect(kgrag.RetriesExhaustedError).toBe(RetriesExhaustedError);
  });
});
