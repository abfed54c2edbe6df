import { describe, expect, it } from "vitest";
import { OrdinalMarks } from "../../src/query/graph/ordinal-marks.js";

describe("ordinal marks", () => {
  it("keeps values for one pass, forgets them all at the next, and grows for large ordinals", () => {
    const marks = new OrdinalMarks();
    marks.startPass();
    expect(marks.get(3)).toBe(-1);
    marks.set(3, 7);
    marks.set(5000, 0);
    expect([marks.get(3), marks.get(5000), marks.get(4)]).toEqual([7, 0, -1]);
    marks.startPass();
    expect([marks.get(3), marks.get(5000)]).toEqual([-1, -1]);
    marks.set(5000, 2);
    expect(marks.get(5000)).toBe(2);
  });
});
