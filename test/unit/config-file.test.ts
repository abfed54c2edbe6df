import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { CONFIG_SCHEMA_PATH, configJsonSchemaText } from "../../src/config-file/json-schema.js";
import { packagePath } from "../../src/util/paths.js";
import { runMain } from "../support/cli-in-process.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "kgrag-config-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writeConfig(values: unknown, path = join(dir, "kgrag.config.json")): string {
  writeFileSync(path, JSON.stringify(values));
  return path;
}

describe("kgrag.config.json", () => {
  it("is found in the workspace, and its values are used with their source", () => {
    const file = writeConfig({ query: { topK: 7 }, chunking: { size: 300 } });
    const loaded = loadConfig({}, { workspace: dir });
    expect(loaded.file).toBe(file);
    expect(loaded.config.query.topK).toBe(7);
    expect(loaded.config.chunking.size).toBe(300);
    expect(loaded.sources["query.topK"]).toBe(`file ${file}`);
    expect(loaded.sources["query.chunkTopK"]).toBe("default");
    expect(loaded.sources.workspace).toBe("option");
  });

  it("is found in the current folder when the workspace has none, and the workspace's wins", () => {
    const here = writeConfig({ query: { topK: 5 } });
    const workspace = join(dir, "ws");
    mkdirSync(workspace);
    const started = process.cwd();
    process.chdir(dir);
    try {
      const fromHere = loadConfig({}, { workspace });
      expect(fromHere.file).toBe(here);
      expect(fromHere.config.query.topK).toBe(5);
      const own = writeConfig({ query: { topK: 6 } }, join(workspace, "kgrag.config.json"));
      const fromWorkspace = loadConfig({}, { workspace });
      expect(fromWorkspace.file).toBe(own);
      expect(fromWorkspace.config.query.topK).toBe(6);
    } finally {
      process.chdir(started);
    }
  });

  it("is read from --config (KGRAG_CONFIG), which must exist", () => {
    const file = writeConfig({ query: { topK: 9 } }, join(dir, "elsewhere.json"));
    expect(loadConfig({ KGRAG_CONFIG: file }).config.query.topK).toBe(9);
    expect(() => loadConfig({ KGRAG_CONFIG: join(dir, "missing.json") })).toThrow(/Config file not found/);
  });

  it("takes neo4j.readOnlyProcedures as full procedure names, none by default", () => {
    const neo4j = { uri: "bolt://localhost:7687", password: "x" };
    const plain = writeConfig({ neo4j }, join(dir, "plain.json"));
    expect(loadConfig({ KGRAG_CONFIG: plain }).config.neo4j?.readOnlyProcedures).toEqual([]);
    const listed = writeConfig(
      { neo4j: { ...neo4j, readOnlyProcedures: ["apoc.meta.schema", "apoc.path.subgraphAll"] } },
      join(dir, "listed.json"),
    );
    expect(loadConfig({ KGRAG_CONFIG: listed }).config.neo4j?.readOnlyProcedures).toEqual([
      "apoc.meta.schema",
      "apoc.path.subgraphAll",
    ]);
    const wrong = writeConfig({ neo4j: { ...neo4j, readOnlyProcedures: ["apoc.meta.schema()"] } });
    expect(() => loadConfig({ KGRAG_CONFIG: wrong })).toThrow(
      /a procedure's full name, e\.g\. apoc\.meta\.schema/,
    );
  });

  it("is read when saved with a byte order mark, as editors on Windows may save it", () => {
    const file = join(dir, "bom.json");
    writeFileSync(file, `\uFEFF${JSON.stringify({ query: { topK: 8 } })}`);
    expect(loadConfig({ KGRAG_CONFIG: file }).config.query.topK).toBe(8);
  });

  it("says on which line and column its JSON breaks", () => {
    const file = join(dir, "broken.json");
    writeFileSync(file, '{\n  "query": {\n    "topK": 5,\n  }\n}\n');
    expect(() => loadConfig({ KGRAG_CONFIG: file })).toThrow(/is not valid JSON: .*\(?line 4,? column 3\)/);
  });

  it("gives way to environment variables, which say where they came from", () => {
    const file = writeConfig({
      llm: { model: "from-file", baseURL: "http://127.0.0.1:1/v1", concurrency: 2 },
    });
    const loaded = loadConfig({ KGRAG_CONFIG: file, KGRAG_LLM_MODEL: "from-env" });
    expect(loaded.config.llm?.model).toBe("from-env");
    expect(loaded.config.llm?.concurrency).toBe(2);
    expect(loaded.sources["llm.model"]).toBe("env KGRAG_LLM_MODEL");
    expect(loaded.sources["llm.concurrency"]).toBe(`file ${file}`);
  });

  it("reads each model's key from the variable apiKeyEnv names, never from the file", () => {
    const file = writeConfig({
      llm: { model: "m", apiKeyEnv: "MY_LLM_KEY" },
      stages: { answers: { model: "big", apiKeyEnv: "ANSWER_KEY" } },
    });
    const loaded = loadConfig({
      KGRAG_CONFIG: file,
      MY_LLM_KEY: "k1",
      ANSWER_KEY: "k2",
      OPENAI_API_KEY: "k0",
    });
    expect(loaded.config.llm?.apiKey).toBe("k1");
    expect(loaded.config.stages?.answers?.apiKey).toBe("k2");
    expect(loaded.sources["llm.apiKey"]).toBe("env MY_LLM_KEY");
  });

  it("names an unknown key, the key meant and the keys known there", () => {
    const file = writeConfig({ query: { topk: 5 } });
    expect(() => loadConfig({ KGRAG_CONFIG: file })).toThrow(ConfigError);
    expect(() => loadConfig({ KGRAG_CONFIG: file })).toThrow(
      /query\.topk: unknown key \(did you mean "topK"\? known here: topK,/,
    );
  });

  it("names a key of the wrong type", () => {
    const file = writeConfig({ stages: { reports: { temperature: "hot" } }, llm: { model: "m" } });
    expect(() => loadConfig({ KGRAG_CONFIG: file })).toThrow(
      /stages\.reports\.temperature: .*expected number/,
    );
  });

  it("resolves the workspace and prompt folders it names against its own folder", () => {
    mkdirSync(join(dir, "conf"));
    const file = writeConfig({ workspace: "data", prompts: "my-prompts" }, join(dir, "conf", "k.json"));
    const { config } = loadConfig({ KGRAG_CONFIG: file });
    expect(config.workspace).toBe(join(dir, "conf", "data"));
    expect(config.prompts).toBe(join(dir, "conf", "my-prompts"));
  });

  it("accepts the $schema key editors use", () => {
    const file = writeConfig({ $schema: "./node_modules/kgrag/schema/kgrag.config.schema.json" });
    expect(loadConfig({ KGRAG_CONFIG: file }).config.query.topK).toBe(40);
  });

  it("per-stage models need the default model", () => {
    const file = writeConfig({ stages: { answers: { model: "big" } } });
    expect(() => loadConfig({ KGRAG_CONFIG: file })).toThrow(/stages: per-stage models need `llm`/);
  });
});

describe("the README's example (examples/kgrag.config.json)", () => {
  it("is valid, every stage falling back to the default model for what it leaves out", () => {
    const file = packagePath("examples", "kgrag.config.json");
    const { config } = loadConfig({ KGRAG_CONFIG: file, OPENAI_API_KEY: "sk-1", OLLAMA_KEY: "local" });
    expect(config.llm?.apiKey).toBe("sk-1");
    expect(config.stages?.keywords?.apiKey).toBe("local");
    expect(config.stages?.reports?.model).toBe("gpt-4o");
    expect(config.query.ranking.fusionK).toBe(60);
  });

  it("shows the defaults of the sections it does not change, and `kgrag config` reads it", async () => {
    const file = packagePath("examples", "kgrag.config.json");
    const example = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    const { config: defaults } = loadConfig({});
    for (const section of ["chunking", "extraction", "merge", "community", "query", "estimate"] as const)
      expect(defaults[section], section).toMatchObject(example[section] as object);
    // Its prompt folder exists (empty), so the example runs as it is.
    const result = await runMain(["--config", file, "config"], { OPENAI_API_KEY: "sk-1" });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  });
});

describe("the published JSON Schema", () => {
  it("is the one generated from the zod schema (regenerate: npm run config-schema)", () => {
    expect(readFileSync(packagePath(CONFIG_SCHEMA_PATH), "utf8")).toBe(configJsonSchemaText());
  });

  it("refuses unknown keys and knows the per-stage model fields", () => {
    const schema = JSON.parse(configJsonSchemaText());
    expect(schema.additionalProperties).toBe(false);
    const answers = schema.properties.stages.properties.answers;
    expect(Object.keys(answers.properties)).toEqual(
      expect.arrayContaining(["model", "apiKeyEnv", "requestsPerMinute", "tokensPerMinute", "price"]),
    );
    expect(answers.additionalProperties).toBe(false);
  });
});

describe("kgrag config", () => {
  it("prints every value with its source and masks secrets", async () => {
    const file = writeConfig({ llm: { model: "m", apiKeyEnv: "SECRET_KEY" }, query: { topK: 11 } });
    const result = await runMain(["config", "--json", "--config", file], { SECRET_KEY: "sk-very-secret" });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("sk-very-secret");
    const printed = JSON.parse(result.stdout);
    expect(printed.file).toBe(file);
    expect(printed.config.llm.apiKey).toBe("***");
    expect(printed.config.query.topK).toBe(11);
    expect(printed.sources["llm.apiKey"]).toBe("env SECRET_KEY");
    // Keys left at their defaults are listed too, with their value and source "default".
    expect(printed.config.query.chunkTopK).toBe(20);
    expect(printed.sources["query.chunkTopK"]).toBe("default");
    expect(printed.sources["chunking.size"]).toBe("default");
    const table = await runMain(["config", "--config", file], { SECRET_KEY: "sk-very-secret" });
    expect(table.stdout).toMatch(/query\.topK\s+11\s+file /);
    expect(table.stdout).toMatch(/query\.chunkTopK\s+20\s+default/);
    expect(table.stdout).not.toContain("sk-very-secret");
  });

  it("exits 2 naming the key of a bad file", async () => {
    const file = writeConfig({ chunking: { size: "big" } });
    const result = await runMain(["config", "--config", file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/chunking\.size/);
  });
});
