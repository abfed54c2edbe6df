import { describe, expect, it } from "vitest";
import { readableCitations } from "../../src/community/citations.js";
import { citationFilter } from "../../src/query/answer/citation-stream.js";

/** Streams `text` in the given piece sizes and returns what the terminal would show. */
function streamed(text: string, shown: Set<string>, size: number): string {
  let out = "";
  const filter = citationFilter((delta) => {
    out += delta;
  }, shown);
  for (let i = 0; i < text.length; i += size) filter.push(text.slice(i, i + size));
  filter.end();
  return out;
}

describe("citation filter for streamed answers", () => {
  const shown = new Set(["c0-1"]);
  const answer =
    "Erosion grows after storms [C:c0-1, 2] [E:4]. Councils map it [R:1, R:2] with drones [1]. " +
    "See [C:c9-9] and [note].";

  it("shows exactly the cleaned final answer, however the tokens are cut", () => {
    const final = readableCitations(answer, shown);
    expect(final).not.toMatch(/\[E:|\[R:|c9-9/);
    for (const size of [1, 2, 3, 5, 7, 16, answer.length]) expect(streamed(answer, shown, size)).toBe(final);
  });

  it("drops passage numbers that are not among the references, however the tokens are cut", () => {
    const passages = new Set([1, 2, 3, 4]);
    const text = "Ada wrote it [2]. Invented [42]. Both [2, 42] and [4;7], not [2, abc].";
    const expected = "Ada wrote it [2]. Invented. Both [2] and [4], not [2, abc].";
    for (const size of [1, 2, 3, 5, text.length]) {
      let out = "";
      const filter = citationFilter(
        (delta) => {
          out += delta;
        },
        shown,
        passages,
      );
      for (let i = 0; i < text.length; i += size) filter.push(text.slice(i, i + size));
      filter.end();
      expect(out).toBe(expected);
    }
  });

  it("lets a long bracket through as text instead of holding it back", () => {
    const text = `Note [${"x".repeat(100)} and more`;
    let out = "";
    const filter = citationFilter((delta) => {
      out += delta;
    }, shown);
    filter.push(text);
    expect(out).toBe(text);
  });
});
