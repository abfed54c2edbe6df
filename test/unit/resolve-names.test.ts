import { describe, expect, it } from "vitest";
import type { CandidatePair } from "../../src/resolve/candidates.js";
import { borderlineVouching, decide } from "../../src/resolve/candidates.js";
import { mergesFromPairs } from "../../src/resolve/clusters.js";
import { compareNames } from "../../src/resolve/name-evidence.js";
import { analyzeName, blockingKeys } from "../../src/resolve/names.js";

const relation = (a: string, b: string) => compareNames(analyzeName(a), analyzeName(b)).relation;
const tuning = { minSharedNeighbours: 2, maxBlockSize: 200 };

describe("name evidence", () => {
  it("drops titles and articles: the same name is strong evidence", () => {
    expect(relation("SCROOGE", "MR. SCROOGE")).toBe("strong");
    expect(relation("The Ghost of Christmas Past", "GHOST OF CHRISTMAS PAST")).toBe("strong");
    expect(relation("王小明先生", "王小明")).toBe("strong");
  });

  it("never pairs Mr. with Mrs., nor 先生 with 女士", () => {
    expect(relation("MR. FEZZIWIG", "MRS. FEZZIWIG")).toBe("conflict");
    expect(relation("王先生", "王女士")).toBe("conflict");
  });

  it("treats a possessive as naming someone else", () => {
    expect(relation("SCROOGE'S NEPHEW", "SCROOGE")).toBe("conflict");
    expect(relation("Marley's Ghost", "Jacob Marley")).toBe("conflict");
    expect(relation("王小明的父亲", "王小明")).toBe("conflict");
  });

  it("reads a name that is part of another as weak evidence only", () => {
    expect(relation("SCROOGE", "EBENEZER SCROOGE")).toBe("weak");
    expect(relation("JOE", "JOE MILLER")).toBe("weak");
    expect(relation("TIM", "TINY TIM")).toBe("weak");
  });

  it("sends a title and surname against a full name to confirmation", () => {
    expect(relation("MRS. CRATCHIT", "BOB CRATCHIT")).toBe("borderline");
    expect(relation("王先生", "王小明")).toBe("borderline");
  });

  it("tells different given names with one surname apart", () => {
    expect(relation("BOB CRATCHIT", "TIM CRATCHIT")).toBe("conflict");
    expect(relation("Martha Cratchit", "Belinda Cratchit")).toBe("conflict");
    expect(relation("王小明", "王小红")).toBe("conflict");
  });

  it("matches a Chinese given name to the full name", () => {
    expect(relation("小明", "王小明")).toBe("weak");
  });

  it("matches a Chinese company's short name to its full name, as a weak match", () => {
    expect(relation("星河动力", "星河动力公司")).toBe("weak");
    expect(relation("星河动力集团", "星河动力")).toBe("weak");
    expect(relation("星河动力", "蓝箭航天公司")).toBe("none");
    // Compared at all: the full name is blocked with its short one.
    const keys = blockingKeys(analyzeName("星河动力有限公司"));
    expect(keys).toEqual(expect.arrayContaining(blockingKeys(analyzeName("星河动力"))));
  });

  it("matches initials and acronyms", () => {
    expect(relation("J. P. Morgan", "John Pierpont Morgan")).toBe("strong");
    expect(relation("IBM", "International Business Machines")).toBe("strong");
    expect(relation("NASA", "National Aeronautics and Space Administration")).toBe("strong");
    expect(relation("IBM", "Intel")).toBe("none");
  });
});

function pair(a: string, b: string, shared: number, extra: Partial<CandidatePair> = {}): CandidatePair {
  const name = compareNames(analyzeName(a), analyzeName(b));
  const evidence = {
    a: a.toLowerCase(),
    b: b.toLowerCase(),
    names: [a, b] as [string, string],
    name,
    types: ["person", "person"] as [string, string],
    typesAgree: true,
    sharedNeighbours: Array.from({ length: shared }, (_, i) => `n${i}`),
    sharedChunks: 0,
    related: false,
    ...extra,
  };
  return { ...evidence, foundBy: "name", ...decide(evidence, tuning) };
}

describe("decisions", () => {
  it("merges a weak name only with shared neighbours and no relationship between them", () => {
    expect(pair("TIM", "TINY TIM", 2).decision).toBe("merge");
    expect(pair("JOE", "JOE MILLER", 0).decision).toBe("apart");
    expect(pair("JOE", "JOE MILLER", 1).decision).toBe("confirm");
    expect(pair("BOB", "BOB CRATCHIT", 3, { related: true }).decision).toBe("confirm");
  });

  it("says what a pair shares in the right number", () => {
    expect(pair("JOE", "JOE MILLER", 1).why).toMatch(/; 1 shared neighbour, 0 shared passages$/);
    expect(pair("TIM", "TINY TIM", 2, { sharedChunks: 1 }).why).toMatch(
      /; 2 shared neighbours, 1 shared passage$/,
    );
  });

  it("merges part of a name only for people, and never noun phrases", () => {
    expect(pair("Baltimore", "Baltimore County", 3, { types: ["location", "location"] }).decision).toBe(
      "confirm",
    );
    expect(pair("pain", "back pain", 3).decision).toBe("apart");
    expect(pair("CEO", "Chief Executive Officer", 1, { types: ["concept", "concept"] }).decision).toBe(
      "merge",
    );
  });

  it("never chains unrelated names through a short one", () => {
    const merges = mergesFromPairs(
      [pair("American", "American Mafia", 2), pair("American", "American Football League", 2)],
      new Map(),
    );
    expect(merges).toEqual([]);
  });

  it("needs agreeing types and some shared context even for the same name", () => {
    expect(pair("SCROOGE", "MR. SCROOGE", 0, { sharedChunks: 1 }).decision).toBe("merge");
    expect(pair("SCROOGE", "MR. SCROOGE", 0).decision).toBe("confirm");
    expect(pair("SCROOGE", "MR. SCROOGE", 3, { typesAgree: false }).decision).toBe("apart");
    expect(pair("MR. FEZZIWIG", "MRS. FEZZIWIG", 5).decision).toBe("apart");
  });

  it("leaves a name that fits two conflicting names with neither", () => {
    const merges = mergesFromPairs(
      [pair("FEZZIWIG", "MR. FEZZIWIG", 2), pair("FEZZIWIG", "MRS. FEZZIWIG", 2)],
      new Map(),
    );
    expect(merges).toEqual([]);
  });

  it("folds a group into its fullest name", () => {
    const vouched = borderlineVouching([pair("MR. SCROOGE", "EBENEZER SCROOGE", 3)]);
    const merges = mergesFromPairs(
      [pair("SCROOGE", "MR. SCROOGE", 2), pair("SCROOGE", "EBENEZER SCROOGE", 3)],
      new Map(),
      vouched,
    );
    expect(merges.map((m) => [m.from, m.into])).toEqual([
      ["mr. scrooge", "ebenezer scrooge"],
      ["scrooge", "ebenezer scrooge"],
    ]);
  });

  it("does not join groups across a conflict", () => {
    const spouses = pair("MRS. CRATCHIT", "BOB CRATCHIT", 4, { related: true });
    const merges = mergesFromPairs(
      [pair("CRATCHIT", "MRS. CRATCHIT", 2), pair("CRATCHIT", "BOB CRATCHIT", 3)],
      new Map(),
      borderlineVouching([spouses]),
    );
    // "Cratchit" fits both, and nothing vouches for "Mrs. Cratchit" and "Bob Cratchit" being one.
    expect(merges).toEqual([]);
  });
});
