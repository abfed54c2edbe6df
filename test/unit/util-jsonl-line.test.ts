import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseJsonLine } from "../../src/util/jsonl-line.js";
import { mustBe } from "../../src/util/zod-messages.js";

const FORMAT = 'each line is {"id", "name"}';
const Schema = z.object(
  {
    id: z.union([z.string(), z.number()], mustBe("a string or a number", "id")),
    name: z.string(mustBe("text", "name")),
  },
  { error: "not a JSON object" },
);

describe("parseJsonLine", () => {
  it("returns the parsed record", () => {
    expect(parseJsonLine('{"id": 3, "name": "x", "extra": 1}', 4, Schema, FORMAT)).toEqual({
      ok: true,
      value: { id: 3, name: "x" },
    });
  });

  it("names the line and the format for a line that is not JSON", () => {
    expect(parseJsonLine("{oops", 7, Schema, FORMAT)).toEqual({
      ok: false,
      id: null,
      problem: "not valid JSON",
      error: `line 7 is not valid JSON; ${FORMAT}`,
    });
  });

  it("lists each problem once and keeps a readable id as it was given", () => {
    expect(parseJsonLine('{"id": 5, "name": 1}', 2, Schema, FORMAT)).toMatchObject({
      ok: false,
      id: 5,
      error: `line 2: "name" must be text; ${FORMAT}`,
    });
    expect(parseJsonLine('{"id": ["a"]}', 3, Schema, FORMAT)).toMatchObject({
      id: null,
      problem: '"id" must be a string or a number, missing "name"',
    });
    expect(parseJsonLine("[1]", 1, Schema, FORMAT)).toMatchObject({ problem: "not a JSON object" });
  });
});

describe("mustBe", () => {
  it("words a missing or mistyped field with its quoted name, or without one for a caller's prefix", () => {
    const named = z.object({ n: z.number(mustBe("a number", "n")) });
    const bare = z.object({ n: z.number(mustBe("a number")) });
    const message = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error?.issues[0]?.message;
    expect(message(named, {})).toBe('missing "n"');
    expect(message(named, { n: "1" })).toBe('"n" must be a number');
    expect(message(bare, {})).toBe("is required");
    expect(message(bare, { n: "1" })).toBe("must be a number");
  });

  it("leads a zod message that does not name its field with the field's path", () => {
    const Plain = z.object({ id: z.string().min(1), meta: z.record(z.string(), z.string()) });
    const result = parseJsonLine('{"id": "", "meta": {"tags": 3}}', 5, Plain, FORMAT);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problem).toMatch(/^id: /);
      expect(result.problem).toMatch(/meta\.tags: /);
    }
  });
});
