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
