import { describe, expect, it } from "vitest";
import { foldEntity, foldRelationship, mentionsFromExtraction } from "../../src/merge/fold.js";
import { DESCRIPTION_SEPARATOR, relationshipKey } from "../../src/merge/keys.js";
import type { EntityMention, EntityRecord, Extraction, RelationshipMention } from "../../src/types.js";

const opts = { summaryMinFragments: 4, summaryMinTokens: 200 };

const entity = (chunkId: string, name: string, type: string, description: string): EntityMention => ({
  entityKey: name.toLowerCase(),
  chunkId,
  name,
  type,
  description,
});

const pair = relationshipKey("lumora optics", "tidewell robotics");
const relation = (
  chunkId: string,
  description: string,
  keywords: string[],
  strength: number,
): RelationshipMention => ({
  relationshipKey: pair,
  sourceKey: "lumora optics",
  targetKey: "tidewell robotics",
  chunkId,
  description,
  keywords,
  strength,
});

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((p) => [item, ...p]),
  );
}

describe("mentionsFromExtraction", () => {
  const extraction: Extraction = {
    entities: [
      { name: "Lumora Optics", type: "Organization", description: "A lens maker." },
      { name: "  lumora  optics ", type: "unknown", description: "A lens maker in Vessen, founded in 2009." },
      { name: "   ", type: "person", description: "nameless" },
      { name: "Mara Quell", type: "concept", description: "Founder." },
      { name: "MARA QUELL", type: "person", description: "" },
    ],
    relationships: [
      {
        source: "Mara Quell",
        target: "Lumora Optics",
        description: "founded",
        keywords: ["founder"],
        strength: 9,
      },
      {
        source: "Lumora Optics",
        target: "mara quell",
        description: "She founded it in 2009.",
        keywords: ["Founder", "2009"],
        strength: 7,
      },
      { source: "Lumora Optics", target: "LUMORA OPTICS", description: "self", keywords: [], strength: 5 },
      {
        source: "Lumora Optics",
        target: "Vessen",
        description: "based in",
        keywords: ["location"],
        strength: 6,
      },
      { source: "", target: "Vessen", description: "no source", keywords: [], strength: 6 },
    ],
  };
  const { entities, relationships } = mentionsFromExtraction("chunk-1", extraction);

  it("keeps one mention per entity: the longer description and the most specific type", () => {
    const lumora = entities.find((e) => e.entityKey === "lumora optics");
    expect(lumora).toEqual({
      entityKey: "lumora optics",
      chunkId: "chunk-1",
      name: "Lumora Optics",
      type: "organization",
      description: "A lens maker in Vessen, founded in 2009.",
    });
    expect(entities.find((e) => e.entityKey === "mara quell")).toMatchObject({
      type: "person",
      description: "Founder.",
    });
  });

  it("drops empty names and self-loops", () => {
    expect(entities.map((e) => e.entityKey)).not.toContain("");
    expect(relationships.map((r) => r.relationshipKey)).not.toContain(
      relationshipKey("lumora optics", "lumora optics"),
    );
    expect(relationships).toHaveLength(2);
  });

  it("merges both directions of a pair into one mention, keywords united, strength not added", () => {
    const founded = relationships.find(
      (r) => r.relationshipKey === relationshipKey("mara quell", "lumora optics"),
    );
    expect(founded).toEqual({
      relationshipKey: relationshipKey("lumora optics", "mara quell"),
      sourceKey: "lumora optics",
      targetKey: "mara quell",
      chunkId: "chunk-1",
      description: "She founded it in 2009.",
      keywords: ["founder", "2009"],
      strength: 9,
    });
  });

  it("adds a placeholder mention for a relationship endpoint the extraction did not list", () => {
    expect(entities.find((e) => e.entityKey === "vessen")).toEqual({
      entityKey: "vessen",
      chunkId: "chunk-1",
      name: "Vessen",
      type: "unknown",
      description: "",
    });
    const keys = new Set(entities.map((e) => e.entityKey));
    for (const r of relationships) expect(keys.has(r.sourceKey) && keys.has(r.targetKey)).toBe(true);
  });
});

describe("foldEntity", () => {
  const mentions = [
    entity("chunk-c", "Lumora Optics", "organization", "A lens maker."),
    entity("chunk-a", "Lumora optics", "company", "Founded in Vessen in 2009."),
    entity("chunk-b", "Lumora Optics", "unknown", "a  LENS maker."),
    entity("chunk-d", "Lumora optics", "organization", ""),
    entity("chunk-e", "Lumora Optics", "company", "Makes the Halcyon lens."),
  ];

  it("gives the same record for every order of the mentions", () => {
    const folds = permutations(mentions).map((order) => foldEntity("lumora optics", order, opts));
    for (const fold of folds) expect(fold).toEqual(folds[0]);
  });

  it("de-duplicates fragments by case and spacing, in chunk order, joined with <SEP>", () => {
    const fold = foldEntity("lumora optics", mentions.slice(0, 4), opts)!;
    expect(fold.fragments).toEqual(["Founded in Vessen in 2009.", "a  LENS maker."]);
    expect(fold.description).toBe(`Founded in Vessen in 2009.${DESCRIPTION_SEPARATOR}a  LENS maker.`);
    expect(fold.sourceChunkIds).toEqual(["chunk-a", "chunk-b", "chunk-c", "chunk-d"]);
    expect(fold.needsSummary).toBe(false);
  });

  it("drops a fragment that only repeats the start of another, and keeps both passages", () => {
    // "Lumora" merged into "Lumora Optics" (its mentions read under the survivor's key): one
    // passage described it by its first sentence, the other by that sentence and the next.
    const opening = "Lumora Optics, known as Lumora, opened a lab in Vessen.";
    const merged = [
      entity("chunk-a", "Lumora Optics", "organization", opening),
      {
        ...entity("chunk-b", "Lumora", "organization", `${opening} Lumora hired Mara Quell.`),
        entityKey: "lumora optics",
      },
      entity("chunk-c", "Lumora Optics", "organization", opening),
    ];
    for (const order of permutations(merged)) {
      const fold = foldEntity("lumora optics", order, opts)!;
      expect(fold.fragments).toEqual([`${opening} Lumora hired Mara Quell.`]);
      expect(fold.sourceChunkIds).toEqual(["chunk-a", "chunk-b", "chunk-c"]);
    }
  });

  it("drops a clipped or chunk-cut fragment the whole sentence holds, but not a word's first letters", () => {
    const whole = "Maria Lopez expects Northwind Traders to open a store in Portland next year.";
    const fold = foldEntity(
      "maria lopez",
      [
        entity("chunk-a", "Maria Lopez", "person", "Maria Lopez expects Northwind Traders to open a store…"),
        entity("chunk-b", "Maria Lopez", "person", whole),
        entity("chunk-c", "Maria Lopez", "person", "…to open a store in Portland next year."),
        entity("chunk-d", "Maria Lopez", "person", "Maria Lopez"),
        entity("chunk-e", "Maria Lopez", "person", "Maria Lopezian studies began in Oslo."),
      ],
      opts,
    )!;
    expect(fold.fragments).toEqual([whole, "Maria Lopezian studies began in Oslo."]);
    expect(fold.sourceChunkIds).toHaveLength(5);
  });

  it("drops a Chinese fragment that starts or ends another", () => {
    const first = "星河动力今天在北京发布了第三季度财报。";
    const second = "王建国表示，收入增长了百分之二十。";
    const fold = foldEntity(
      "星河动力",
      [
        entity("chunk-a", "星河动力", "organization", first),
        entity("chunk-b", "星河动力", "organization", `${first}${second}`),
        entity("chunk-c", "星河动力", "organization", `…${second}`),
      ],
      opts,
    )!;
    expect(fold.fragments).toEqual([`${first}${second}`]);
  });

  it("takes the most frequent name (ties: earliest) and type (ignoring unknown; ties: alphabetical)", () => {
    const fold = foldEntity("lumora optics", mentions, opts)!;
    expect(fold.name).toBe("Lumora Optics");
    expect(fold.type).toBe("company");
    const tied = foldEntity("lumora optics", mentions.slice(0, 2), opts)!;
    expect(tied.name).toBe("Lumora optics");
    expect(tied.type).toBe("company");
    const unknownOnly = foldEntity("vessen", [entity("chunk-a", "Vessen", "unknown", "")], opts)!;
    expect(unknownOnly).toMatchObject({ type: "unknown", description: "", fragments: [] });
  });

  it("returns null when no mention of the key remains", () => {
    expect(foldEntity("lumora optics", [], opts)).toBeNull();
    expect(foldEntity("lumora optics", [entity("chunk-a", "Vessen", "location", "x")], opts)).toBeNull();
  });

  it("asks for a summary once the fragment count reaches the threshold", () => {
    const three = foldEntity("lumora optics", mentions.slice(0, 4).concat(mentions[4]!), opts)!;
    expect(three.fragments).toHaveLength(3);
    expect(three.needsSummary).toBe(false);
    const four = foldEntity(
      "lumora optics",
      [...mentions, entity("chunk-f", "Lumora Optics", "company", "Has 140 staff.")],
      opts,
    )!;
    expect(four.needsSummary).toBe(true);
    expect(four.description).toBe(four.fragments.join(DESCRIPTION_SEPARATOR));
  });

  it("asks for a summary once the fragments' tokens reach the threshold, but never for one fragment", () => {
    const long = "The company grinds glass and coats lenses for harsh coastal light. ".repeat(20);
    const two = foldEntity(
      "lumora optics",
      [entity("chunk-a", "Lumora Optics", "company", long), mentions[0]!],
      opts,
    )!;
    expect(two.needsSummary).toBe(true);
    const one = foldEntity("lumora optics", [entity("chunk-a", "Lumora Optics", "company", long)], opts)!;
    expect(one.needsSummary).toBe(false);
  });

  it("keeps a previous summary made from the same fragments, and only then", () => {
    const grown = [...mentions, entity("chunk-f", "Lumora Optics", "company", "Has 140 staff.")];
    const pending = foldEntity("lumora optics", grown, opts)!;
    const summarised: EntityRecord = { ...pending, description: "A Vessen lens maker.", needsSummary: false };
    expect(foldEntity("lumora optics", grown, opts, summarised)).toEqual(summarised);
    const more = [...grown, entity("chunk-g", "Lumora Optics", "company", "Opened a plant in Port Ellery.")];
    const refolded = foldEntity("lumora optics", more, opts, summarised)!;
    expect(refolded.needsSummary).toBe(true);
    expect(refolded.description).toContain("Opened a plant in Port Ellery.");
    const stillPending = foldEntity("lumora optics", grown, opts, pending)!;
    expect(stillPending.needsSummary).toBe(true);
  });
});

describe("foldRelationship", () => {
  const mentions = [
    relation("chunk-b", "Lumora supplies Halcyon lenses to Tidewell.", ["supply", "lenses"], 8),
    relation("chunk-a", "Five-year supply agreement.", ["agreement", "Supply"], 6),
    relation("chunk-c", "lumora supplies halcyon lenses to tidewell.", ["lenses", "supply", "drones"], 7),
  ];

  it("sums strengths, unites keywords by frequency, and keeps canonical endpoints", () => {
    const fold = foldRelationship(pair, mentions, opts)!;
    expect(fold).toEqual({
      key: pair,
      sourceKey: "lumora optics",
      targetKey: "tidewell robotics",
      description: `Five-year supply agreement.${DESCRIPTION_SEPARATOR}Lumora supplies Halcyon lenses to Tidewell.`,
      fragments: ["Five-year supply agreement.", "Lumora supplies Halcyon lenses to Tidewell."],
      keywords: ["Supply", "lenses", "agreement", "drones"],
      weight: 21,
      sourceChunkIds: ["chunk-a", "chunk-b", "chunk-c"],
      fragmentsHash: expect.any(String),
      needsSummary: false,
    });
  });

  it("gives the same record for every order of the mentions", () => {
    const folds = permutations(mentions).map((order) => foldRelationship(pair, order, opts));
    for (const fold of folds) expect(fold).toEqual(folds[0]);
  });

  it("returns null without mentions and flags summaries at the threshold", () => {
    expect(foldRelationship(pair, [], opts)).toBeNull();
    const many = ["One.", "Two.", "Three.", "Four."].map((d, i) => relation(`chunk-${i}`, d, [], 1));
    expect(foldRelationship(pair, many, opts)!.needsSummary).toBe(true);
  });
});
