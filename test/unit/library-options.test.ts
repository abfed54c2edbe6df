import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KgragConfigInput } from "../../src/config.js";
import { ConfigError } from "../../src/config-error.js";
import { HashingEmbedder } from "../../src/embedding/hashing-embedder.js";
import { type CreateKgragOptions, createKgrag, type Kgrag, KgragClosedError } from "../../src/kgrag.js";
import { OptionsError } from "../../src/options-error.js";
import type { QueryOptionsInput } from "../../src/query/options.js";
import type { MergeOptions, RelationshipInput } from "../../src/resolve/curation.js";
import { closestName } from "../../src/util/closest-name.js";
import type { IndexOptions } from "../../src/workspace/indexing.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "kgrag-library-options-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Options as a JavaScript caller passes them: not checked by the compiler. */
const untyped = (options: Record<string, unknown>) => options as CreateKgragOptions;
const untypedConfig = (config: Record<string, unknown>) => config as KgragConfigInput;
const untypedIndex = (options: Record<string, unknown>) => options as IndexOptions;
const untypedQuery = (options: Record<string, unknown>) => options as QueryOptionsInput;
const untypedMerge = (options: Record<string, unknown>) => options as MergeOptions;
const untypedLink = (input: Record<string, unknown>) => input as unknown as RelationshipInput;

/** Runs `work` in an empty folder, to see whether it created ./kgrag-data there. */
async function inEmptyFolder(work: () => Promise<unknown>): Promise<void> {
  const started = process.cwd();
  process.chdir(dir);
  try {
    await work();
  } finally {
    process.chdir(started);
  }
}

describe("createKgrag's options are strict", () => {
  it("refuses a misspelt config key, naming the key meant, and creates no ./kgrag-data", async () => {
    await inEmptyFolder(async () => {
      const opening = createKgrag({ env: {}, config: untypedConfig({ workspce: join(dir, "ws") }) });
      await expect(opening).rejects.toBeInstanceOf(ConfigError);
      await expect(opening).rejects.toThrow(/workspce: unknown key \(did you mean "workspace"\?/);
    });
    expect(existsSync(join(dir, "kgrag-data"))).toBe(false);
  });

  it("refuses an unknown key nested in config, with its path", async () => {
    const opening = createKgrag({ env: {}, config: untypedConfig({ workspace: dir, query: { topk: 3 } }) });
    await expect(opening).rejects.toBeInstanceOf(ConfigError);
    await expect(opening).rejects.toThrow(/query\.topk: unknown key \(did you mean "topK"\?/);
  });

  it("refuses a misspelt option beside config, and creates no ./kgrag-data", async () => {
    await inEmptyFolder(async () => {
      const opening = createKgrag(untyped({ env: {}, confg: { workspace: join(dir, "ws") } }));
      await expect(opening).rejects.toBeInstanceOf(ConfigError);
      await expect(opening).rejects.toThrow(/Unknown createKgrag option "confg" \(did you mean "config"\?\)/);
    });
    expect(existsSync(join(dir, "kgrag-data"))).toBe(false);
  });

  it("refuses a config that is no object of settings", async () => {
    await expect(createKgrag(untyped({ env: {}, config: "./kgrag-data" }))).rejects.toThrow(
      /^Invalid createKgrag options: config: [^\n]*must be an object of settings[^\n]*\.$/,
    );
  });

  it("takes a config file's object as it is, its editor `$schema` included", async () => {
    const kg = await createKgrag({
      env: {},
      config: untypedConfig({
        $schema: "./node_modules/kgrag/schema/kgrag.config.schema.json",
        workspace: dir,
      }),
    });
    await kg.close();
  });

  it("takes an AbortSignal from another realm (a polyfill, jsdom) by what the pipeline uses of it", async () => {
    await withKgrag(async (kg) => {
      const foreign = { aborted: false, reason: undefined, addEventListener() {}, removeEventListener() {} };
      const summary = await kg.index(DOCS, untypedIndex({ signal: foreign }));
      expect(summary.added).toEqual(["clocks"]);
    });
  });

  it("still opens with known options, process.env as the environment", async () => {
    // Given models and storage: whatever the test's environment configures does not matter here.
    const kg = await createKgrag({
      env: process.env,
      config: { workspace: dir, storage: "sqlite" },
      chat: null,
      embedder: new HashingEmbedder(),
      progress: undefined,
    });
    await kg.close();
  });
});

describe("createKgrag's model settings", () => {
  it("tunes `llm` without a model name when given a chat model object, and uses that object", async () => {
    const chat = new FakeListChatModel({ responses: ["ok"] });
    // Typed: llm.model may be left out (the compiler checks this call as a consumer's would).
    const config: KgragConfigInput = { workspace: dir, llm: { concurrency: 2, temperature: 0 } };
    const kg = await createKgrag({ env: {}, config, chat, embedder: new HashingEmbedder() });
    try {
      expect(kg.mode).toBe("llm");
      expect(kg.services.config.llm).toMatchObject({ concurrency: 2 });
      expect(kg.services.chat?.model).toBe("fake-list");
    } finally {
      await kg.close();
    }
  });

  it("refuses `llm` without a model when no chat model object is given, saying how to name one", async () => {
    const opening = createKgrag({ env: {}, config: { workspace: dir, llm: { concurrency: 2 } } });
    await expect(opening).rejects.toThrow(ConfigError);
    await expect(opening).rejects.toThrow(/no model is named.*llm\.model or KGRAG_LLM_MODEL.*\{ chat \}/);
    const embedding = createKgrag({ env: {}, config: { workspace: dir, embedding: { batchSize: 8 } } });
    await expect(embedding).rejects.toThrow(/embedding: no model is named.*\{ embedder \}/);
  });
});

/** An empty workspace in `dir`, closed after `work`. */
async function withKgrag(work: (kg: Kgrag) => Promise<void>): Promise<void> {
  const kg = await createKgrag({ env: {}, config: { workspace: dir } });
  try {
    await work(kg);
  } finally {
    await kg.close();
  }
}

const DOCS = [{ id: "clocks", title: "Clocks", text: "Ines Varga repairs clocks in Porto." }];

describe("the instance's methods refuse unknown options, as query does", () => {
  it("index: a misspelt option is an OptionsError naming the one meant, and nothing is indexed", async () => {
    await withKgrag(async (kg) => {
      const indexing = kg.index(DOCS, untypedIndex({ prnue: true }));
      await expect(indexing).rejects.toBeInstanceOf(OptionsError);
      await expect(indexing).rejects.toThrow(
        /Unknown index option "prnue" \(did you mean "prune"\?\)\. Known options: communities, prune, signal, metadata\./,
      );
      await expect(kg.index(DOCS, untypedIndex({ communities: "no" }))).rejects.toThrow(
        /^Invalid index options: communities: [^\n]*expected boolean[^\n]*\.$/,
      );
      expect((await kg.status()).documents).toEqual([]);
      // The known ones, left undefined as the CLI leaves them, still index.
      await kg.index(DOCS, { prune: undefined, communities: false, signal: undefined });
      expect((await kg.status()).documents).toHaveLength(1);
    });
  });

  it("query: a misspelt option is an OptionsError", async () => {
    await withKgrag(async (kg) => {
      await expect(kg.query("Who repairs clocks?", untypedQuery({ topk: 3 }))).rejects.toBeInstanceOf(
        OptionsError,
      );
    });
  });

  it("entity curation: misspelt options and fields are refused before anything is looked up", async () => {
    await withKgrag(async (kg) => {
      const merging = kg.entities.merge(["Ines Varga", "Varga"], untypedMerge({ intoo: "Ines Varga" }));
      await expect(merging).rejects.toBeInstanceOf(OptionsError);
      await expect(merging).rejects.toThrow(
        /Unknown entities\.merge option "intoo" \(did you mean "into"\?\)/,
      );
      await expect(kg.entities.rename("Ines Varga", "Ines", untypedMerge({ bye: "me" }))).rejects.toThrow(
        /Unknown entities\.rename option "bye"/,
      );
      const linking = kg.entities.addRelationship(
        "Ines Varga",
        "Porto",
        untypedLink({ description: "works in", keyword: ["work"] }),
      );
      await expect(linking).rejects.toThrow(
        /Unknown entities\.addRelationship field "keyword" \(did you mean "keywords"\?\)\. Known fields: description, keywords, strength\./,
      );
    });
  });

  it("entity curation: a relationship's strength outside 1-10 is an OptionsError naming it, and nothing is added", async () => {
    await withKgrag(async (kg) => {
      await kg.index([
        { id: "porto", title: "Porto", text: "Ines Varga repairs clocks in Porto with Tomas Reis." },
      ]);
      const [a, b] = (await kg.entities.list()).map((e) => e.name);
      for (const strength of [1e308, 11, 0, 0.5, -3]) {
        const linking = kg.entities.addRelationship(a!, b!, { description: "works with", strength });
        await expect(linking).rejects.toBeInstanceOf(OptionsError);
        await expect(linking).rejects.toThrow(
          /^Invalid entities.addRelationship fields: strength: strength must be from 1 to 10[^\n]*$/,
        );
      }
      expect(await kg.entities.rules()).toEqual([]);
      const added = await kg.entities.addRelationship(a!, b!, { description: "works with", strength: 10 });
      expect(added.weight).toBeGreaterThanOrEqual(10);
    });
  });
});

describe("mistakes get a clear error, not an internal one", () => {
  it("a call after close() says the instance is closed; a second close() is harmless", async () => {
    const kg = await createKgrag({ env: {}, config: { workspace: dir } });
    await kg.close();
    await expect(kg.query("Who repairs clocks?")).rejects.toBeInstanceOf(KgragClosedError);
    await expect(kg.query("Who repairs clocks?")).rejects.toThrow(/instance \(workspace .*\) is closed/);
    await expect(kg.index(DOCS)).rejects.toBeInstanceOf(KgragClosedError);
    await expect(kg.status()).rejects.toBeInstanceOf(KgragClosedError);
    await expect(kg.entities.list()).rejects.toBeInstanceOf(KgragClosedError);
    await kg.close();
  });

  it("a question that is not text, and arguments that are not lists, are OptionsErrors saying so", async () => {
    await withKgrag(async (kg) => {
      const asking = kg.query(null as unknown as string);
      await expect(asking).rejects.toBeInstanceOf(OptionsError);
      await expect(asking).rejects.toThrow("The question must be a non-empty string; got null.");
      await expect(kg.query(" ")).rejects.toThrow(/The question is empty/);
      await expect(kg.query("x".repeat(10_001))).rejects.toThrow(
        "The question is 10,001 characters long; at most 10,000 are taken (config query.maxQuestionChars).",
      );
      await expect(kg.index("./docs" as unknown as string[])).rejects.toThrow(
        'index takes a list of file and folder paths, of documents or of LangChain documents; got the string "./docs".',
      );
      await expect(kg.deleteDocuments("doc-1" as unknown as string[])).rejects.toBeInstanceOf(OptionsError);
    });
  });

  it("a workspace path that is a file, or inside one, is a ConfigError saying so", async () => {
    const file = join(dir, "notes.txt");
    writeFileSync(file, "not a workspace");
    const opening = createKgrag({ env: {}, config: { workspace: file } });
    await expect(opening).rejects.toBeInstanceOf(ConfigError);
    await expect(opening).rejects.toThrow(`The workspace path ${file} is a file; a workspace is a folder`);
    await expect(createKgrag({ env: {}, config: { workspace: join(file, "ws") } })).rejects.toThrow(
      `is inside ${file}, which is a file`,
    );
  });
});

describe("closestName", () => {
  const known = ["communities", "prune", "signal"];

  it.each([
    ["prnue", "prune"],
    ["Prune", "prune"],
    ["comunities", "communities"],
    ["signl", "signal"],
  ])("takes %s for %s", (name, meant) => {
    expect(closestName(name, known)).toBe(meant);
  });

  it("takes the one nearest name when another is farther", () => {
    // One slip from "relationship", two from "relationships".
    expect(closestName("relationshp", ["relationship", "relationships"])).toBe("relationship");
  });

  it("guesses nothing for a name no known one is close to, nor between two equally close ones", () => {
    expect(closestName("colour", known)).toBeUndefined();
    expect(closestName("bats", ["bass", "bath"])).toBeUndefined();
  });

  it("knows synonyms callers reach for", () => {
    expect(closestName("filter", ["metadata"], { filter: "metadata" })).toBe("metadata");
  });

  it("looks through more names than a call's arguments fit (a large workspace's entities)", () => {
    const entities = Array.from({ length: 300_000 }, (_, i) => `Entity number ${i}`);
    entities.push("Lumora Optics");
    expect(closestName("Lumora Opitcs", entities)).toBe("Lumora Optics");
    expect(closestName("Nothing close at all", entities)).toBeUndefined();
  });
});

describe("a refused option value is said in one line", () => {
  it("names each field before its problem, as the CLI's one-line errors need", async () => {
    await withKgrag(async (kg) => {
      await expect(kg.query("Who?", untypedQuery({ topK: "5", chunkTopK: 0 }))).rejects.toThrow(
        /^Invalid query options: topK: [^\n;]*expected number[^\n;]*; chunkTopK: [^\n]*\.$/,
      );
    });
  });
});
