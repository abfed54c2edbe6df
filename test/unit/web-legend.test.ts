import { describe, expect, it } from "vitest";
import { canvasLegend, communityLabels } from "../../web/src/graph/colors.js";

describe("web app: the graph legend's community names", () => {
  it("names a community by its report's title, one without a report by its id, and none as such", () => {
    const labels = communityLabels([
      { id: "c0-1a2b3c4d5e6f", title: "Gullwing drones and Tidewell Robotics" },
      { id: "c0-ffffffffffff", title: "c0-ffffffffffff" },
    ]);
    expect(labels.get("c0-1a2b3c4d5e6f")).toBe("Gullwing drones and Tidewell Robotics");
    expect(labels.get("c0-ffffffffffff")).toBe("community c0-ffffffffffff");
    expect(labels.get("none")).toBe("no community");
    expect(labels.get("c0-unknown")).toBeUndefined();
  });
});

describe("web app: the legend of a graph with faded nodes", () => {
  it("counts the categories of the nodes drawn in colour, and the faded ones apart", () => {
    const legend = canvasLegend([
      { category: "person", faded: false },
      { category: "person", faded: false },
      { category: "organization", faded: false },
      { category: "organization", faded: true },
      { category: "location", faded: true },
    ]);
    expect(legend.entries.map(({ key, count }) => [key, count])).toEqual([
      ["person", 2],
      ["organization", 1],
    ]);
    expect(legend.faded).toBe(2);
    // Every node is in the legend once: in a colour's count or in the faded count.
    expect(legend.entries.reduce((sum, entry) => sum + entry.count, 0) + legend.faded).toBe(5);
  });

  it("has no faded count when nothing fades", () => {
    const legend = canvasLegend([{ category: "person", faded: false }]);
    expect(legend).toEqual({
      entries: [{ key: "person", count: 1, colour: legend.entries[0]?.colour }],
      faded: 0,
    });
  });
});
