import { describe, expect, it } from "vitest";
import { labelBox, labelPlacement, labelSide, overflow } from "../../web/src/graph/label-placement.js";

const viewport = { width: 390, height: 500 };
const at = (x: number, y: number, width = 120) => ({ x, y, radius: 6, margin: 5, width, height: 12 });

describe("web graph: a node's label is placed where it is read whole", () => {
  it("keeps the label on the right where it fits", () => {
    expect(labelSide(at(100, 200), viewport)).toBe("right");
  });

  it("draws it on the node's left when it would run past the right edge", () => {
    const nearRightEdge = at(330, 200);
    expect(overflow(labelBox(nearRightEdge, "right"), viewport)).toBeGreaterThan(0);
    expect(labelSide(nearRightEdge, viewport)).toBe("left");
    expect(overflow(labelBox(nearRightEdge, "left"), viewport)).toBe(0);
  });

  it("puts it under or over a node so close to the top or bottom that a label beside it is cut", () => {
    expect(labelSide(at(200, 3, 60), viewport)).toBe("below");
    expect(labelSide(at(200, 497, 60), viewport)).toBe("above");
  });

  it("takes the side cut least when no side fits whole", () => {
    // Wider than the view on either side of a node in the middle: under it, centred, is cut least.
    const side = labelSide(at(195, 250, 500), viewport);
    expect(side).toBe("below");
  });

  it("hides the label of a node past the edge that would show only in part, not one whose node is in view", () => {
    // Its label's end on the left would lie 19 px past the edge.
    expect(labelPlacement(at(420, 200), viewport)).toBe("hidden");
    expect(labelPlacement(at(385, 200), viewport)).toBe("left");
    // Past the edge, but its label fits whole on the node's left.
    expect(labelPlacement(at(395, 200), viewport)).toBe("left");
    // In view, a label too wide for any side is still drawn, cut least.
    expect(labelPlacement(at(195, 250, 500), viewport)).toBe("below");
  });
});
