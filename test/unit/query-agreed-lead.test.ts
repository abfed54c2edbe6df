import { describe, expect, it } from "vitest";
import { agreedLead, withLead } from "../../src/query/modes/passage-evidence.js";

const ranked = (...ids: string[]) => ids.map((id, i) => ({ id, score: ids.length - i }));

describe("agreedLead (hybrid and mix: the first passage two rankings agree on)", () => {
  it("keeps local's head first when BM25 also ranks it near the top", () => {
    const walks = { local: ranked("l1", "t1"), global: ranked("g1") };
    expect(agreedLead(ranked("t1", "l1"), walks, 2)).toBeUndefined();
  });

  it("puts BM25's head first when a walk ranks it within the depth and local's head lacks BM25's support", () => {
    const walks = { local: ranked("l1", "x", "t1"), global: ranked("g1") };
    expect(agreedLead(ranked("t1", "y", "z", "l1"), walks, 3)?.id).toBe("t1");
    expect(agreedLead(ranked("t1", "y", "z", "l1"), walks, 2)).toBeUndefined();
    expect(agreedLead(ranked("t1"), { local: ranked("l1"), global: ranked("g1", "t1") }, 2)?.id).toBe("t1");
  });

  it("moves nothing at depth 0 or when no walk found BM25's head", () => {
    const walks = { local: ranked("l1", "t1"), global: ranked("g1") };
    expect(agreedLead(ranked("t1"), walks, 0)).toBeUndefined();
    expect(agreedLead(ranked("zz"), walks, 10)).toBeUndefined();
    expect(agreedLead([], walks, 10)).toBeUndefined();
  });

  it("withLead moves the lead to the front once", () => {
    const [lead] = ranked("c");
    expect(withLead(lead, ranked("a", "b", "c")).map((c) => c.id)).toEqual(["c", "a", "b"]);
    expect(withLead(undefined, ranked("a", "b")).map((c) => c.id)).toEqual(["a", "b"]);
  });
});
