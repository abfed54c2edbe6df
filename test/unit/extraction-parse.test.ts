import { describe, expect, it } from "vitest";
import { isCompleteExtraction, parseExtraction } from "../../src/extraction/parse.js";
import { EXTRACTION_JSON_SCHEMA, MAX_ENTITIES_PER_ANSWER } from "../../src/extraction/schema.js";

const ANSWER = {
  entities: [
    { name: "Christopher Nolan", type: "person", description: "British-American film director." },
    { name: "Inception", type: "work", description: "A 2010 science fiction film." },
  ],
  relationships: [
    {
      source: "Christopher Nolan",
      target: "Inception",
      description: "Christopher Nolan wrote and directed Inception.",
      keywords: ["film direction", "authorship"],
      strength: 9,
    },
  ],
};
const JSON_TEXT = JSON.stringify(ANSWER);

function parsed(raw: string) {
  const result = parseExtraction(raw);
  if (!result.ok) throw new Error(`expected a parse, got: ${result.error}`);
  return result.extraction;
}

describe("parseExtraction", () => {
  it("reads a plain JSON answer", () => {
    expect(parsed(JSON_TEXT)).toEqual(ANSWER);
  });

  it("reads JSON inside a code fence", () => {
    expect(parsed(`\`\`\`json\n${JSON_TEXT}\n\`\`\``)).toEqual(ANSWER);
  });

  it("ignores prose before and after the JSON, even with brackets in it", () => {
    const raw = `Here is the graph [as requested]:\n${JSON_TEXT}\nLet me know if {anything} is missing.`;
    expect(parsed(raw)).toEqual(ANSWER);
  });

  it("drops a reasoning block before the answer", () => {
    expect(parsed(`<think>The passage is about {films}.</think>\n${JSON_TEXT}`)).toEqual(ANSWER);
  });

  it("repairs an answer truncated in the middle of a record", () => {
    const truncated = JSON_TEXT.slice(0, JSON_TEXT.indexOf("wrote and") + 5);
    const extraction = parsed(truncated);
    expect(extraction.entities).toEqual(ANSWER.entities);
    expect(extraction.relationships).toHaveLength(1);
    expect(extraction.relationships[0]?.source).toBe("Christopher Nolan");
    expect(extraction.relationships[0]?.description.startsWith("Christopher Nolan wrote")).toBe(true);
  });

  it("repairs an unterminated code fence with a truncated answer", () => {
    const raw = `\`\`\`json\n${JSON_TEXT.slice(0, JSON_TEXT.indexOf('"relationships"'))}`;
    expect(parsed(raw).entities).toEqual(ANSWER.entities);
  });

  it("repairs single quotes and trailing commas", () => {
    const raw =
      "{'entities': [{'name': 'Inception', 'type': 'work', 'description': 'A film',},], 'relationships': []}";
    expect(parsed(raw)).toEqual({
      entities: [{ name: "Inception", type: "work", description: "A film" }],
      relationships: [],
    });
  });

  it("reads a top-level array of mixed records", () => {
    const raw = JSON.stringify([...ANSWER.entities, ...ANSWER.relationships]);
    expect(parsed(raw)).toEqual(ANSWER);
  });

  it("reads a top-level array of extraction objects", () => {
    const raw = JSON.stringify([
      { entities: [ANSWER.entities[0]] },
      { entities: [ANSWER.entities[1]], relationships: ANSWER.relationships },
    ]);
    expect(parsed(raw)).toEqual(ANSWER);
  });

  it("looks one level into a wrapper object", () => {
    expect(parsed(JSON.stringify({ result: ANSWER }))).toEqual(ANSWER);
  });

  it("accepts an empty extraction", () => {
    expect(parsed('{"entities": [], "relationships": []}')).toEqual({ entities: [], relationships: [] });
  });

  it("fails with a reason on an empty answer, prose only, or JSON of another shape", () => {
    expect(parseExtraction("   ")).toEqual({ ok: false, error: expect.stringContaining("empty") });
    expect(parseExtraction("I could not find any entities.")).toEqual({
      ok: false,
      error: expect.stringContaining("no JSON"),
    });
    for (const wrongShape of [
      '{"entities": "none", "relationships": 5}',
      '{"entities": [], "relationships": "none"}',
      '{"entities": ["Paris", "France"], "relationships": []}',
    ]) {
      expect(parseExtraction(wrongShape)).toEqual({ ok: false, error: expect.stringContaining("shape") });
      expect(isCompleteExtraction(wrongShape)).toBe(false);
    }
    expect(parsed('{"entities": [], "relationships": null}')).toEqual({ entities: [], relationships: [] });
    expect(parseExtraction('{"answer": 42}')).toEqual({
      ok: false,
      error: expect.stringContaining('"entities"'),
    });
  });

  it("reads no fragment of an answer whose JSON cannot be read, such as its trailing empty list", () => {
    // Unreadable as a whole, its last "[]" must not pass as an empty extraction (cached as good).
    const wrongDelimiters = '{"entities"= [{"name"= "Mara Okafor"}], "relationships"= []}';
    expect(parseExtraction(wrongDelimiters)).toEqual({
      ok: false,
      error: expect.stringContaining("could not be read"),
    });
    expect(isCompleteExtraction(wrongDelimiters)).toBe(false);
  });

  it("reads JSON written with full-width colons, commas and quotes, keeping them inside strings", () => {
    const entity = '{"name"："北京"，"type"："location"，"description"："首都，一座城市"}';
    for (const answer of [
      `{"entities"：[${entity}]，"relationships"：[]}`,
      `{“entities”：[${entity.replace(/"/g, "“").replace(/“([，：}])/g, "”$1")}]，“relationships”：[]}`,
    ]) {
      expect(parsed(answer).entities).toEqual([
        { name: "北京", type: "location", description: "首都，一座城市" },
      ]);
      expect(isCompleteExtraction(answer)).toBe(true);
    }
  });

  it("keeps no name that is a piece of the extraction format or a placeholder", () => {
    const entity = (name: string) => ({ name, type: "person", description: "d" });
    const answer = {
      entities: [
        entity("<|>"),
        entity("##"),
        entity("<|COMPLETE|>"),
        entity("Mara Okafor<|>person"),
        entity("entity"),
        entity("Entity_Name"),
        entity("source"),
        entity('"Lumen Robotics"'),
        entity("Mara Okafor"),
      ],
      relationships: [
        { source: "<|>", target: "Mara Okafor", description: "", keywords: [], strength: 5 },
        { source: "entity", target: "Mara Okafor", description: "", keywords: [], strength: 5 },
        { source: "“Mara Okafor”", target: "Lumen Robotics", description: "d", keywords: [], strength: 5 },
      ],
    };
    const extraction = parsed(JSON.stringify(answer));
    expect(extraction.entities.map((e) => e.name)).toEqual(["Lumen Robotics", "Mara Okafor"]);
    expect(extraction.relationships.map((r) => [r.source, r.target])).toEqual([
      ["Mara Okafor", "Lumen Robotics"],
    ]);
  });
});

describe("lenient normalisation", () => {
  it("turns a keyword string into a list and a strength string into a clamped number", () => {
    const raw = JSON.stringify({
      entities: [],
      relationships: [
        {
          source: "A",
          target: "B",
          description: "d",
          keywords: "founding, ownership；rivalry",
          strength: "12",
        },
        { source: "A", target: "C", description: "d", keywords: ["x"], strength: "0.2" },
        { source: "B", target: "C", description: "d", keywords: ["x"], strength: "strong" },
        { source: "B", target: "D", description: "d", keywords: ["x"] },
      ],
    });
    const { relationships } = parsed(raw);
    expect(relationships[0]?.keywords).toEqual(["founding", "ownership", "rivalry"]);
    expect(relationships.map((r) => r.strength)).toEqual([10, 1, 5, 5]);
  });

  it("gives a missing type 'unknown', lower-cases types and drops nameless records", () => {
    const raw = JSON.stringify({
      entities: [
        { name: "Paris", description: "Capital of France." },
        { name: "  ", type: "x" },
        { name: "Seine", type: "Location" },
        { type: "person" },
      ],
      relationships: [{ source: "", target: "Paris", description: "x" }],
    });
    expect(parsed(raw)).toEqual({
      entities: [
        { name: "Paris", type: "unknown", description: "Capital of France." },
        { name: "Seine", type: "location", description: "" },
      ],
      relationships: [],
    });
  });

  it("accepts LightRAG-style field names", () => {
    const raw = JSON.stringify({
      entities: [{ entity_name: "Paris", entity_type: "location", entity_description: "A city." }],
      relationships: [
        {
          src_id: "Paris",
          tgt_id: "France",
          description: "capital",
          relationship_keywords: "capital",
          weight: 8,
        },
      ],
    });
    expect(parsed(raw)).toEqual({
      entities: [{ name: "Paris", type: "location", description: "A city." }],
      relationships: [
        { source: "Paris", target: "France", description: "capital", keywords: ["capital"], strength: 8 },
      ],
    });
  });

  it("caps a runaway answer", () => {
    const entities = Array.from({ length: MAX_ENTITIES_PER_ANSWER + 20 }, (_, i) => ({
      name: `E${i}`,
      type: "concept",
      description: "",
    }));
    expect(parsed(JSON.stringify({ entities, relationships: [] })).entities).toHaveLength(
      MAX_ENTITIES_PER_ANSWER,
    );
  });
});

describe("EXTRACTION_JSON_SCHEMA", () => {
  it("asks for both lists with every field required and no extra fields", () => {
    const schema = EXTRACTION_JSON_SCHEMA.schema as {
      required: string[];
      additionalProperties: boolean;
      properties: { relationships: { items: { required: string[]; properties: { strength: object } } } };
      $schema?: string;
    };
    expect(schema.required).toEqual(["entities", "relationships"]);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.relationships.items.required).toEqual([
      "source",
      "target",
      "description",
      "keywords",
      "strength",
    ]);
    expect(schema.properties.relationships.items.properties.strength).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 10,
    });
    expect(schema.$schema).toBeUndefined();
  });
});

describe("an answer checked for the cache, then read by the extractor", () => {
  it("is read to the same extraction, handed to one reader only", () => {
    const raw = JSON.stringify({
      entities: [{ name: "Ada", type: "person", description: "A mathematician." }],
      relationships: [],
    });
    expect(isCompleteExtraction(raw)).toBe(true);
    const first = parseExtraction(raw);
    const second = parseExtraction(raw);
    expect(first).toEqual(second);
    // The second reader gets its own objects: changing one extraction leaves the other as read.
    expect(first).not.toBe(second);
    expect(first.ok && first.extraction.entities.map((e) => e.name)).toEqual(["Ada"]);
  });
});
