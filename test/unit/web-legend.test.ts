import { describe, expect, it } from "vitest";
import { communityLabels } from "../../web/src/graph/colors.js";

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
