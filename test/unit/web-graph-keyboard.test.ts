import { describe, expect, it } from "vitest";
import { nearestInDirection, stepByDegree } from "../../web/src/graph/keyboard-nav.js";

const node = (id: string, x: number, y: number, degree = 1) => ({ id, x, y, degree });

describe("web graph: keyboard moves between the nodes drawn", () => {
  const centre = node("centre", 100, 100);
  const nodes = [
    centre,
    node("right-near-off-line", 130, 160),
    node("right-in-line", 170, 105),
    node("left", 40, 100),
    node("above", 100, 20),
    node("below", 95, 180),
  ];

  it("goes to the node nearest that way, one in line before one nearer but off to the side", () => {
    expect(nearestInDirection(centre, nodes, "right")).toBe("right-in-line");
    expect(nearestInDirection(centre, nodes, "left")).toBe("left");
    // Up is towards smaller y on screen.
    expect(nearestInDirection(centre, nodes, "up")).toBe("above");
    expect(nearestInDirection(centre, nodes, "down")).toBe("below");
  });

  it("stays put when nothing lies that way", () => {
    expect(nearestInDirection(node("edge", 500, 100), nodes, "right")).toBeUndefined();
    expect(nearestInDirection(centre, [centre], "left")).toBeUndefined();
  });

  it("walks the nodes most connected first, going round at either end", () => {
    const ranked = [node("b", 0, 0, 5), node("a", 0, 0, 5), node("c", 0, 0, 9), node("d", 0, 0, 1)];
    expect(stepByDegree(undefined, ranked, 1)).toBe("c");
    expect(stepByDegree("c", ranked, 1)).toBe("a");
    expect(stepByDegree("a", ranked, 1)).toBe("b");
    expect(stepByDegree("d", ranked, 1)).toBe("c");
    expect(stepByDegree("c", ranked, -1)).toBe("d");
    expect(stepByDegree("x", [], 1)).toBeUndefined();
  });
});
