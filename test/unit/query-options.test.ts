import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { QuerySchema } from "../../src/config.js";
import { createKgrag } from "../../src/kgrag.js";
import { OptionsError } from "../../src/options-error.js";
import { type QueryOptionsInput, resolveQueryOptions, suggestQueryOption } from "../../src/query/options.js";

const config = QuerySchema.parse({});

/** Options as a JavaScript caller (or JSON) passes them: not checked by the compiler. */
const untyped = (options: Record<string, unknown>) => options as QueryOptionsInput;

describe("query options are strict", () => {
  it.each([
    [{ filter: { topic: "sites" } }, /Unknown query option "filter" \(did you mean "metadata"\?\)/],
    [{ topk: 3 }, /Unknown query option "topk" \(did you mean "topK"\?\)/],
    [{ chunk_top_k: 3 }, /"chunk_top_k" \(did you mean "chunkTopK"\?\)/],
    [{ docs: ["a"] }, /"docs" \(did you mean "docIds"\?\)/],
  ])("%o is refused, naming the option meant", (options, message) => {
    expect(() => resolveQueryOptions(config, untyped(options))).toThrow(message);
  });

  it("lists every unknown option and the known ones; no guess when nothing is close", () => {
    const attempt = () => resolveQueryOptions(config, untyped({ colour: "red", topk: 2 }));
    expect(attempt).toThrow(
      /Unknown query options "colour", "topk" \(did you mean "topK"\?\)\. Known options: id, mode, topK,/,
    );
    expect(suggestQueryOption("colour")).toBeUndefined();
  });

  it.each([
    [{ topK: 99_999_999_999 }, /\btopK: Too big: expected number to be <=10000/],
    [{ chunkTopK: 10_001 }, /\bchunkTopK: /],
    [{ entityTokens: 2_000_001 }, /\bentityTokens: Too big: expected number to be <=2000000/],
    [{ relationshipTokens: 1e12 }, /\brelationshipTokens: /],
    [{ totalTokens: 5_000_000 }, /\btotalTokens: /],
  ])("%o past its bound is an OptionsError naming it", (options, message) => {
    const attempt = () => resolveQueryOptions(config, options);
    expect(attempt).toThrow(OptionsError);
    expect(attempt).toThrow(message);
  });

  it("bounds the workspace config's numeric query settings alike, and takes each bound itself", () => {
    for (const key of ["topK", "chunkTopK", "hybridCorpusPassages"] as const) {
      const settings = key === "hybridCorpusPassages" ? { fusion: { [key]: 10_001 } } : { [key]: 10_001 };
      expect(QuerySchema.safeParse(settings).success).toBe(false);
    }
    expect(QuerySchema.safeParse({ totalTokens: 2_000_001 }).success).toBe(false);
    expect(QuerySchema.safeParse({ globalBatchTokens: 2_000_001 }).success).toBe(false);
    expect(QuerySchema.safeParse({ communityLevel: 101 }).success).toBe(false);
    const widest = QuerySchema.parse({ topK: 10_000, chunkTopK: 10_000, totalTokens: 2_000_000 });
    expect(resolveQueryOptions(widest, { entityTokens: 2_000_000 })).toMatchObject({
      topK: 10_000,
      chunkTopK: 10_000,
      totalTokens: 2_000_000,
      entityTokens: 2_000_000,
    });
  });

  it("accepts the known options, also when a caller leaves some undefined", () => {
    const resolved = resolveQueryOptions(config, {
      topK: 3,
      metadata: { topic: "sites" },
      onToken: undefined,
    });
    expect(resolved.topK).toBe(3);
    expect(resolved.scope).toEqual({ metadata: { topic: "sites" } });
  });

  it("takes metadata values as numbers and booleans too, matched as text like the CLI's --filter", async () => {
    expect(resolveQueryOptions(config, { metadata: { year: 2015, open: true } }).scope).toEqual({
      metadata: { year: "2015", open: "true" },
    });
    const dir = mkdtempSync(join(tmpdir(), "kgrag-options-"));
    const kgrag = await createKgrag({ env: {}, config: { workspace: dir } });
    try {
      await kgrag.index([
        { id: "old", title: "Old", text: "Ines Varga repairs clocks in Porto.", metadata: { year: 2015 } },
        { id: "new", title: "New", text: "Ines Varga sells clocks in Lisbon.", metadata: { year: 2021 } },
      ]);
      const result = await kgrag.query("Where does Ines Varga work?", {
        contextOnly: true,
        metadata: { year: 2015 },
      });
      expect(result.references.length).toBeGreaterThan(0);
      expect(result.references.every((r) => r.docId === "old")).toBe(true);
    } finally {
      await kgrag.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("kgrag.query rejects a misspelt filter instead of answering unfiltered", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kgrag-options-"));
    const kgrag = await createKgrag({ env: {}, config: { workspace: dir } });
    try {
      await expect(kgrag.query("anything", untyped({ filter: { topic: "sites" } }))).rejects.toThrow(
        /did you mean "metadata"/,
      );
    } finally {
      await kgrag.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
