import { describe, expect, it } from "vitest";
import { communityMeta } from "../../web/src/components/community-meta.js";

describe("web app: a community tree row's meta", () => {
  it("is short on the row and says in words what its numbers are in its tooltip", () => {
    expect(communityMeta({ level: 0, size: 50, rating: 10 })).toEqual({
      short: "L0 · 50 · ★10",
      long: "Level 0 · 50 entities · report rating 10 of 10",
    });
    expect(communityMeta({ level: 2, size: 1, rating: null })).toEqual({
      short: "L2 · 1",
      long: "Level 2 · 1 entity",
    });
  });
});
