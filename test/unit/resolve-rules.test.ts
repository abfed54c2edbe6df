import { describe, expect, it } from "vitest";
import { relationshipKey, splitRelationshipKey } from "../../src/merge/keys.js";
import { Resolution } from "../../src/resolve/resolution.js";
import { type EntityRule, loadRules } from "../../src/resolve/rules.js";
import type { EntityMention, EntityRecord, RelationshipRecord } from "../../src/types.js";

const at = "2026-01-01T00:00:00.000Z";
const merge = (from: string, into: string): EntityRule => ({ kind: "merge", from, into, by: "t", at });

function entity(key: string, name: string): EntityRecord {
  return {
    key,
    name,
    type: "person",
    description: "d",
    fragments: ["d"],
    sourceChunkIds: ["c1"],
    fragmentsHash: "h",
    needsSummary: false,
  };
}

const mention = (name: string, chunkId = "c1"): EntityMention => ({
  entityKey: name.toLowerCase(),
  chunkId,
  name,
  type: "person",
  description: "",
});

describe("rules replayed", () => {
  it("folds chains of merges into one key and expands it back to every extracted key", () => {
    const r = new Resolution([merge("scrooge", "ebenezer scrooge"), merge("mr. scrooge", "scrooge")]);
    expect(r.canonical("mr. scrooge")).toBe("ebenezer scrooge");
    expect(new Set(r.expandEntity("ebenezer scrooge"))).toEqual(
      new Set(["ebenezer scrooge", "scrooge", "mr. scrooge"]),
    );
    expect(r.expandEntity("scrooge")).toEqual([]);
    expect(r.expandEntity("fred")).toEqual(["fred"]);
    expect(
      r.expandRelationship(relationshipKey("fred", "ebenezer scrooge"), splitRelationshipKey),
    ).toHaveLength(3);
  });

  it("drops a relationship between two names of one entity, and relabels the others", () => {
    const r = new Resolution([merge("scrooge", "ebenezer scrooge")]);
    const base = { chunkId: "c1", description: "", keywords: [], strength: 1 };
    expect(
      r.mapRelationshipMention({
        ...base,
        relationshipKey: relationshipKey("ebenezer scrooge", "scrooge"),
        sourceKey: "ebenezer scrooge",
        targetKey: "scrooge",
      }),
    ).toBeNull();
    expect(
      r.mapRelationshipMention({
        ...base,
        relationshipKey: relationshipKey("fred", "scrooge"),
        sourceKey: "fred",
        targetKey: "scrooge",
      })?.relationshipKey,
    ).toBe(relationshipKey("ebenezer scrooge", "fred"));
  });

  it("splits an alias back out and keeps the pair apart from later merges", () => {
    const r = new Resolution([
      merge("tim", "tiny tim"),
      { kind: "split", alias: "tim", from: "tiny tim", by: "t", at },
      merge("tim", "tiny tim"),
    ]);
    expect(r.canonical("tim")).toBe("tim");
    expect(r.keptApart("tim", "tiny tim")).toBe(true);
  });

  it("keeps the survivor's own name, lists the others as aliases, and applies renames and edits", () => {
    const mentions = [mention("SCROOGE"), mention("SCROOGE", "c2"), mention("EBENEZER SCROOGE")].map((m) => ({
      ...m,
      entityKey: "ebenezer scrooge",
    }));
    const merged = new Resolution([merge("scrooge", "ebenezer scrooge")]);
    const folded = { ...entity("ebenezer scrooge", "SCROOGE") };
    expect(merged.finishEntity("ebenezer scrooge", folded, mentions)).toMatchObject({
      name: "EBENEZER SCROOGE",
      aliases: ["SCROOGE"],
    });
    const edited = new Resolution([
      merge("scrooge", "ebenezer scrooge"),
      { kind: "rename", key: "ebenezer scrooge", name: "Ebenezer Scrooge", by: "t", at },
      { kind: "edit", key: "ebenezer scrooge", type: "miser", description: "Hand-written.", by: "t", at },
    ]);
    expect(edited.finishEntity("ebenezer scrooge", folded, mentions)).toMatchObject({
      // A case variant of the new name is no alias.
      name: "Ebenezer Scrooge",
      aliases: ["SCROOGE"],
      type: "miser",
      description: "Hand-written.",
    });
    // With no rule, a record is left exactly as folded (no aliases field at all).
    expect(
      new Resolution([]).finishEntity("scrooge", entity("scrooge", "SCROOGE"), [mention("SCROOGE")]),
    ).toEqual(entity("scrooge", "SCROOGE"));
  });

  it("deletes entities with their relationships, deletes single relationships, and adds hand-made ones", () => {
    const r = new Resolution([
      { kind: "delete-entity", key: "charwoman", by: "t", at },
      { kind: "delete-relationship", source: "topper", target: "fred", by: "t", at },
      {
        kind: "add-relationship",
        source: "fan",
        target: "fred",
        description: "Mother.",
        keywords: [],
        strength: 2,
        by: "t",
        at,
      },
    ]);
    const rel = (a: string, b: string, chunks = ["c1"]): RelationshipRecord => ({
      key: relationshipKey(a, b),
      sourceKey: [a, b].sort()[0]!,
      targetKey: [a, b].sort()[1]!,
      description: "",
      fragments: [],
      keywords: [],
      weight: 1,
      sourceChunkIds: chunks,
      fragmentsHash: "",
      needsSummary: false,
    });
    expect(r.finishEntity("charwoman", entity("charwoman", "CHARWOMAN"), [])).toBeNull();
    expect(r.finishRelationship(rel("charwoman", "joe"))).toBeNull();
    expect(r.finishRelationship(rel("fred", "topper"))).toBeNull();
    expect(r.manualMentions(relationshipKey("fan", "fred"))).toHaveLength(1);
    expect(r.finishRelationship(rel("fan", "fred", ["manual:0"]))?.sourceChunkIds).toEqual([]);
  });
});

describe("stored rules", () => {
  it("bring a hand-added relationship's strength stored out of range into 1-10 instead of refusing the workspace", async () => {
    const stored = [1e308, 11, 0, undefined, 4].map((strength, i) => ({
      kind: "add-relationship",
      source: `a${i}`,
      target: `b${i}`,
      description: "Linked.",
      ...(strength === undefined ? {} : { strength }),
      by: "t",
      at,
    }));
    const rules = await loadRules({ getMeta: async () => JSON.stringify(stored) });
    expect(rules.map((rule) => (rule.kind === "add-relationship" ? rule.strength : undefined))).toEqual([
      10, 10, 1, 1, 4,
    ]);
    const r = new Resolution(rules);
    expect(r.manualMentions(relationshipKey("a0", "b0")).map((m) => m.strength)).toEqual([10]);
  });
});
