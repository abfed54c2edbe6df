import { describe, expect, it } from "vitest";
import { findCandidates } from "../../src/resolve/candidates.js";
import { findSimilarPairs, type SimilarPair } from "../../src/resolve/similar-pairs.js";
import type { EntityRecord, RelationshipRecord, VectorItem } from "../../src/types.js";

const tuning = { minSharedNeighbours: 2, maxBlockSize: 200 };
const similarity = { enabled: true, minScore: 0.9, neighbours: 5, maxBlockSize: 200 };

function entity(name: string, chunks: string[], type = "person"): EntityRecord {
  return {
    key: name.toLowerCase(),
    name,
    type,
    description: `${name}.`,
    fragments: [],
    sourceChunkIds: chunks,
    fragmentsHash: "",
    needsSummary: false,
  };
}

function rel(a: string, b: string): RelationshipRecord {
  const [sourceKey, targetKey] = [a.toLowerCase(), b.toLowerCase()].sort() as [string, string];
  return {
    key: `${sourceKey}\u001f${targetKey}`,
    sourceKey,
    targetKey,
    description: "",
    fragments: [],
    keywords: [],
    weight: 1,
    sourceChunkIds: [],
    fragmentsHash: "",
    needsSummary: false,
  };
}

/** A vector store over fixed vectors, recording which it was asked for. */
function vectorStore(vectors: Record<string, number[]>) {
  const read: string[] = [];
  return {
    read,
    getVectors: async (_ns: string, ids: string[]): Promise<VectorItem[]> => {
      read.push(...ids);
      return ids.flatMap((id) => (vectors[id] ? [{ id, textHash: "", vector: vectors[id] }] : []));
    },
  };
}

describe("embedding-similarity candidates", () => {
  const fred = entity("FRED", ["c1", "c2"]);
  const nephew = entity("SCROOGE'S NEPHEW", ["c1"]);
  const scrooge = entity("SCROOGE", ["c1", "c3"]);
  const belle = entity("BELLE", ["c9"]);

  it("pairs close vectors only among entities that share a passage or a neighbour", async () => {
    const store = vectorStore({
      fred: [1, 0.1, 0],
      "scrooge's nephew": [1, 0.12, 0],
      scrooge: [0, 1, 0],
      // As close to Fred as the nephew, but it shares nothing with him: never compared.
      belle: [1, 0.1, 0],
    });
    const pairs = await findSimilarPairs(store, [fred, nephew, scrooge, belle], [], similarity);
    expect(pairs.map((p) => [p.a, p.b])).toEqual([["fred", "scrooge's nephew"]]);
    expect(pairs[0]!.score).toBeGreaterThan(0.99);
    expect(store.read).not.toContain("belle");
  });

  it("drops pairs under the threshold, and passages too common to pair on", async () => {
    const store = vectorStore({ fred: [1, 0, 0], "scrooge's nephew": [0.6, 0.8, 0] });
    expect(await findSimilarPairs(store, [fred, nephew], [], similarity)).toEqual([]);
    const close = vectorStore({ fred: [1, 0, 0], "scrooge's nephew": [1, 0.01, 0] });
    expect(await findSimilarPairs(close, [fred, nephew], [], { ...similarity, maxBlockSize: 1 })).toEqual([]);
    expect(await findSimilarPairs(close, [fred, nephew], [], { ...similarity, enabled: false })).toEqual([]);
  });

  it("finds neighbours-of-neighbours through relationships", async () => {
    const a = entity("ADA QUILL", ["c1"]);
    const b = entity("MRS. QUILL OF BRISTOL", ["c2"]);
    const firm = entity("NORTHWIND", ["c3"], "organization");
    const store = vectorStore({ "ada quill": [1, 0], "mrs. quill of bristol": [1, 0.05], northwind: [0, 1] });
    const pairs = await findSimilarPairs(
      store,
      [a, b, firm],
      [rel("ADA QUILL", "NORTHWIND"), rel("MRS. QUILL OF BRISTOL", "NORTHWIND")],
      similarity,
    );
    expect(pairs.map((p) => [p.a, p.b])).toEqual([["ada quill", "mrs. quill of bristol"]]);
  });

  const similar = (a: EntityRecord, b: EntityRecord, score = 0.95): SimilarPair[] => {
    const [first, second] = [a.key, b.key].sort() as [string, string];
    return [{ a: first, b: second, score }];
  };

  it("sends a similar pair with shared context and no name to confirmation, never to a merge", () => {
    const [pair] = findCandidates([fred, nephew], [], tuning, undefined, similar(fred, nephew));
    expect(pair).toMatchObject({ foundBy: "similarity", similarity: 0.95, decision: "confirm" });
    expect(pair!.why).toMatch(
      /similar name and description \(0\.95\); 0 shared neighbours, 1 shared passage$/,
    );
  });

  it("keeps a similar pair apart on a relationship, disagreeing types, no shared context or a rule", () => {
    const linked = findCandidates(
      [fred, nephew],
      [rel("FRED", "SCROOGE'S NEPHEW")],
      tuning,
      undefined,
      similar(fred, nephew),
    );
    expect(linked[0]).toMatchObject({ decision: "apart", why: expect.stringMatching(/relationship/) });
    const firm = { ...nephew, type: "organization" };
    expect(findCandidates([fred, firm], [], tuning, undefined, similar(fred, firm))[0]?.decision).toBe(
      "apart",
    );
    expect(findCandidates([fred, belle], [], tuning, undefined, similar(fred, belle))[0]?.decision).toBe(
      "apart",
    );
    expect(findCandidates([fred, nephew], [], tuning, () => true, similar(fred, nephew))).toEqual([]);
  });

  it("lets names decide a similar pair they speak about: a conflict stays apart", () => {
    const mr = entity("MR. FEZZIWIG", ["c1"]);
    const mrs = entity("MRS. FEZZIWIG", ["c1"]);
    const pairs = findCandidates(
      [mr, mrs],
      [],
      { ...tuning, maxBlockSize: 1 },
      undefined,
      similar(mr, mrs, 0.99),
    );
    expect(pairs[0]).toMatchObject({ foundBy: "similarity", decision: "apart" });
    expect(pairs[0]!.why).toMatch(/titles disagree/);
  });

  it("does not count a pair twice when names already paired it", () => {
    const pairs = findCandidates(
      [scrooge, entity("EBENEZER SCROOGE", ["c1"])],
      [],
      tuning,
      undefined,
      similar(scrooge, entity("EBENEZER SCROOGE", [])),
    );
    expect(pairs).toHaveLength(1);
    expect(pairs[0]!.foundBy).toBe("name");
  });
});
