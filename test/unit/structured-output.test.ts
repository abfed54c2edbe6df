import { describe, expect, it } from "vitest";
import { followsStructuredOutput, structuredSpec } from "../../src/query/answer/structured-output.js";

const schema = {
  type: "object",
  properties: { founder: { type: "string" } },
  required: ["founder"],
};

describe("structured output", () => {
  it("asks for any JSON object without a schema, and for the schema when given", () => {
    expect(structuredSpec({})).toEqual({ name: "answer", schema: { type: "object" } });
    expect(structuredSpec({ name: "founder", schema })).toEqual({ name: "founder", schema });
  });

  it("tells JSON that follows the format from text and from JSON of another shape", () => {
    expect(followsStructuredOutput('{"founder": "Mara"}', { schema })).toBe(true);
    expect(followsStructuredOutput('{"name": "Mara"}', { schema })).toBe(false);
    expect(followsStructuredOutput("Mara Okafor [1].", {})).toBe(false);
    expect(followsStructuredOutput("{}", {})).toBe(true);
    expect(followsStructuredOutput("{}", { schema })).toBe(false);
  });
});
