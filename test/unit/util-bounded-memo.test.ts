import { describe, expect, it } from "vitest";
import { BoundedMemo } from "../../src/util/bounded-memo.js";

describe("BoundedMemo", () => {
  it("computes a key's value once and forgets everything when full", () => {
    const memo = new BoundedMemo<string, number>(2);
    let calls = 0;
    const length = (key: string) => () => {
      calls += 1;
      return key.length;
    };
    expect(memo.get("ab", length("ab"))).toBe(2);
    expect(memo.get("ab", length("ab"))).toBe(2);
    expect(calls).toBe(1);
    memo.get("abc", length("abc"));
    memo.get("abcd", length("abcd")); // full: "ab" and "abc" are forgotten
    expect(calls).toBe(3);
    memo.get("ab", length("ab"));
    expect(calls).toBe(4);
    memo.get("abcd", length("abcd")); // kept: the clear came before it was stored
    expect(calls).toBe(4);
  });

  it("takes a capacity per call", () => {
    const memo = new BoundedMemo<string, number>(100);
    let calls = 0;
    const one = () => {
      calls += 1;
      return 1;
    };
    memo.get("a", one, 1);
    memo.get("b", one, 1); // full at 1: "a" is forgotten
    memo.get("a", one, 1);
    expect(calls).toBe(3);
  });

  it("weighs keys when given a weigher: full means keys weighing the capacity in all", () => {
    const memo = new BoundedMemo<string, number>(10, (key) => key.length);
    let calls = 0;
    const length = (key: string) => () => {
      calls += 1;
      return key.length;
    };
    memo.get("abcd", length("abcd"));
    memo.get("efgh", length("efgh")); // 8 of 10
    memo.get("abcd", length("abcd"));
    expect(calls).toBe(2);
    memo.get("ijk", length("ijk")); // 8 + 3 > 10: the others are forgotten
    memo.get("abcd", length("abcd"));
    expect(calls).toBe(4);
    memo.get("ijk", length("ijk")); // kept beside "abcd" (7 of 10)
    expect(calls).toBe(4);
  });
});
