import { UndirectedGraph } from "graphology";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ViewGraph } from "../../web/src/graph/view-graph.js";

type Attributes = { x: number; y: number; label: string };

describe("web app: the drawn graph mirrors the laid-out one", () => {
  let frames: Array<() => void>;
  beforeEach(() => {
    frames = [];
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  const runFrame = () => {
    vi.runAllTimers();
    for (const frame of frames.splice(0)) frame();
  };

  function graphs() {
    const model = new UndirectedGraph<Attributes>();
    const drawn = new ViewGraph(model, new UndirectedGraph<Attributes>(), (callback) =>
      frames.push(callback),
    );
    return { model, drawn, view: drawn.view };
  }

  it("follows nodes, their attributes and edges as the model changes", () => {
    const { model, view } = graphs();
    model.addNode("a", { x: 0, y: 0, label: "A" });
    model.addNode("b", { x: 1, y: 1, label: "B" });
    model.addEdge("a", "b");
    model.mergeNodeAttributes("a", { label: "A2" });
    expect(view.getNodeAttributes("a")).toEqual({ x: 0, y: 0, label: "A2" });
    expect(view.hasEdge("a", "b")).toBe(true);
    model.dropNode("b");
    expect(view.order).toBe(1);
    expect(view.size).toBe(0);
  });

  it("leaves edges out while hidden and brings back every model edge when shown", () => {
    const { model, drawn, view } = graphs();
    for (const key of ["a", "b", "c"]) model.addNode(key, { x: 0, y: 0, label: key });
    model.addEdge("a", "b");
    drawn.showEdges(false);
    model.addEdge("b", "c");
    expect(view.size).toBe(0);
    expect(view.order).toBe(3);
    drawn.showEdges(true);
    expect(
      view
        .edges()
        .map((edge) => view.extremities(edge).sort().join("-"))
        .sort(),
    ).toEqual(["a-b", "b-c"]);
  });

  it("copies the layout's positions once per frame, not once per layout step", () => {
    const { model, view } = graphs();
    model.addNode("a", { x: 0, y: 0, label: "A" });
    const moves = vi.fn();
    view.on("eachNodeAttributesUpdated", moves);
    for (const x of [1, 2, 3]) model.updateEachNodeAttributes((_node, attributes) => ({ ...attributes, x }));
    expect(view.getNodeAttribute("a", "x")).toBe(0);
    runFrame();
    expect(view.getNodeAttribute("a", "x")).toBe(3);
    expect(moves).toHaveBeenCalledTimes(1);
  });
});
