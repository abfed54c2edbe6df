import { InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import {
  checkInvocation,
  parseFilters,
  type QueryFlags,
  queryOptions,
  rankDepthFlag,
} from "../../src/cli/query-flags.js";
import { UsageError } from "../../src/cli/usage-error.js";

const flags = (extra: Partial<QueryFlags> = {}): QueryFlags => ({
  mode: "mix",
  graphRanking: "ppr",
  ...extra,
});

describe("kgrag query flags", () => {
  it("refuses a question with --batch, neither, --json with --batch and --jsonl without it", () => {
    expect(() => checkInvocation("q", flags({ batch: "f" }))).toThrow(/either a question or --batch/);
    expect(() => checkInvocation("  ", flags())).toThrow(UsageError);
    expect(() => checkInvocation(undefined, flags({ batch: "f", json: true }))).toThrow(/--json is for one/);
    expect(() => checkInvocation("q", flags({ jsonl: true }))).toThrow(/--jsonl is for --batch/);
    expect(() => checkInvocation("q", flags({ json: true }))).not.toThrow();
    expect(() => checkInvocation(undefined, flags({ batch: "f", jsonl: true }))).not.toThrow();
  });

  it("refuses --stream beside --json, --jsonl or --context-only, which print no streamed answer", () => {
    expect(() => checkInvocation("q", flags({ stream: true, json: true }))).toThrow(
      /--stream .*--json prints whole/,
    );
    expect(() => checkInvocation(undefined, flags({ batch: "f", jsonl: true, stream: true }))).toThrow(
      /--jsonl/,
    );
    expect(() => checkInvocation("q", flags({ stream: true, contextOnly: true }))).toThrow(
      /--context-only prints no answer/,
    );
    expect(() => checkInvocation("q", flags({ stream: true }))).not.toThrow();
  });

  it("reads --filter pairs, refusing a pair without key or a key given twice", () => {
    expect(parseFilters(["lang = en", "year=2021=x"])).toEqual({ lang: "en", year: "2021=x" });
    expect(() => parseFilters(["=en"])).toThrow(/key=value, got "=en"/);
    expect(() => parseFilters(["lang=en", "lang=zh"])).toThrow(/--filter lang given twice/);
  });

  it("turns the flags into query options", () => {
    expect(queryOptions(flags({ doc: ["d1"], filter: ["a=b"], topK: 3 }))).toMatchObject({
      mode: "mix",
      topK: 3,
      contextOnly: false,
      docIds: ["d1"],
      metadata: { a: "b" },
      graphRanking: "ppr",
    });
    expect(queryOptions(flags()).metadata).toBeUndefined();
  });

  it("accepts whole numbers from 1 to 10,000 only", () => {
    expect(rankDepthFlag("12")).toBe(12);
    expect(rankDepthFlag("10000")).toBe(10_000);
    for (const bad of ["0", "1.5", "x", "10001", "99999999999", "1e300"])
      expect(() => rankDepthFlag(bad)).toThrow(InvalidArgumentError);
  });
});
