import { describe, expect, it } from "vitest";
import { seededRandom } from "../../src/community/seeded-random.js";
import { hashJson, stableStringify } from "../../src/util/hash.js";

/** The element-by-element form every array took before arrays of scalars went to JSON.stringify. */
function elementWise(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(elementWise).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${elementWise(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

const ODD_SCALARS: unknown[] = [
  "",
  'quote " and backslash \\',
  "tab\tnew\nline\u0000nul\u001f",
  "\ud800 lone surrogate",
  "青岚科技 😀 <SEP> é",
  -0,
  0.1 + 0.2,
  1e21,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  false,
  null,
];

describe("stableStringify", () => {
  it("writes arrays of scalars exactly as it writes them element by element (hashes unchanged)", () => {
    expect(stableStringify(ODD_SCALARS)).toBe(elementWise(ODD_SCALARS));
    const random = seededRandom(7);
    for (let round = 0; round < 200; round++) {
      const list = Array.from({ length: Math.floor(random() * 12) }, () => {
        const pick = ODD_SCALARS[Math.floor(random() * ODD_SCALARS.length)];
        return typeof pick === "string" ? `${pick}${Math.floor(random() * 1000)}` : pick;
      });
      expect(stableStringify(list)).toBe(elementWise(list));
      expect(hashJson(list)).toBe(hashJson(list.map((x) => x)));
    }
  });

  it("still sorts keys inside arrays that hold objects, and treats holes and undefined as null", () => {
    const mixed = [{ b: 1, a: ["x", { d: 2, c: 3 }] }, "y", undefined, [3, null]];
    expect(stableStringify(mixed)).toBe('[{"a":["x",{"c":3,"d":2}],"b":1},"y",null,[3,null]]');
    expect(stableStringify(mixed)).toBe(elementWise(mixed));
    expect(stableStringify({ z: ["a", "b"], y: [] })).toBe('{"y":[],"z":["a","b"]}');
    // A hole keeps the element-wise form (map skips it), which is not JSON.stringify's null.
    const holey: unknown[] = [];
    holey[1] = "a";
    expect(stableStringify(holey)).toBe(elementWise(holey));
  });
});
