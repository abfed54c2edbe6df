import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { formatTable, truncateToWidth } from "../../src/cli/output.js";

/** Terminal column at which each cell after the first starts (cells are separated by 2+ spaces). */
function columnStarts(line: string, cells: string[]): number[] {
  let from = 0;
  return cells.map((cell) => {
    const at = line.indexOf(cell, from);
    from = at + cell.length;
    return stringWidth(line.slice(0, at));
  });
}

describe("formatTable", () => {
  it("aligns columns by display width when rows hold Chinese (full-width) text", () => {
    const rows = [
      ["doc-1", "知识图谱检索增强生成", "processed"],
      ["doc-22", "Lumen Robotics", "failed"],
      ["文档三", "中文 and English 混合", "pending"],
    ];
    const lines = formatTable(["id", "title", "status"], rows).split("\n");
    const header = columnStarts(lines[0] ?? "", ["id", "title", "status"]);
    rows.forEach((row, i) => {
      expect(columnStarts(lines[i + 2] ?? "", row)).toEqual(header);
    });
    // The rule under each header is as wide as the widest cell of its column, in columns.
    expect(lines[1]?.split("  ").map((dashes) => dashes.length)).toEqual([6, 21, 9]);
  });

  it("prints null as an empty cell and leaves no trailing spaces", () => {
    const lines = formatTable(
      ["a", "b"],
      [
        ["x", null],
        ["长", 1],
      ],
    ).split("\n");
    expect(lines).toEqual(["a   b", "--  -", "x", "长  1"]);
  });
});

describe("truncateToWidth", () => {
  it("cuts by display width and marks the cut", () => {
    expect(truncateToWidth("知识图谱检索增强生成", 9)).toBe("知识图谱…");
    expect(stringWidth(truncateToWidth("知识图谱检索增强生成", 9))).toBeLessThanOrEqual(9);
    expect(truncateToWidth("Lumen Robotics", 8)).toBe("Lumen R…");
    expect(truncateToWidth("短标题", 40)).toBe("短标题");
  });
});

describe("display width without string-width's tables", () => {
  it("gives every ASCII and full-width CJK character of the fast path the width string-width gives", () => {
    const ranges: [number, number][] = [
      [0x20, 0x7e],
      [0x3001, 0x3029],
      [0x3400, 0x4dbf],
      [0x4e00, 0x9fff],
      [0xf900, 0xfaff],
      [0xff01, 0xff60],
    ];
    for (const [first, last] of ranges) {
      const text = Array.from({ length: last - first + 1 }, (_, i) => String.fromCodePoint(first + i)).join(
        "",
      );
      // The table's rule is as wide as its one cell, in columns.
      const rule = formatTable([text], []).split("\n")[1] ?? "";
      expect(rule.length).toBe(stringWidth(text));
    }
  });

  it("still measures other text (combining marks, emoji, accents) with string-width", () => {
    for (const text of ["e\u0301te\u0301", "👍🏽 ok", "Zoë", "〪〫"]) {
      const rule = formatTable([text], []).split("\n")[1] ?? "";
      expect(rule.length).toBe(stringWidth(text));
    }
    expect(truncateToWidth("👍🏽👍🏽👍🏽", 5)).toBe("👍🏽👍🏽…");
    expect(truncateToWidth("青岚科技 Qinglan", 7)).toBe("青岚科…");
  });
});
