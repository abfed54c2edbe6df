import { describe, expect, it } from "vitest";
import { graphOfRows } from "../../web/src/graph/cypher-graph.js";

const node = (id: string, label: string, name: string) => ({
  elementId: id,
  labels: [label],
  properties: { name },
});

describe("web app: Cypher rows as a graph", () => {
  it("finds nodes and relationships in rows, lists and paths, with degrees", () => {
    const rows = [
      {
        m: node("1", "Movie", "Apollo 13"),
        r: {
          elementId: "r1",
          type: "ACTED_IN",
          startNodeElementId: "2",
          endNodeElementId: "1",
          properties: {},
        },
        p: node("2", "Person", "Tom Hanks"),
      },
      {
        path: {
          segments: [{ start: node("3", "Person", "Ron Howard"), end: node("1", "Movie", "Apollo 13") }],
        },
      },
      { friends: [node("4", "Person", "Gary Sinise")], title: "not a node" },
    ];
    const graph = graphOfRows(rows);
    expect(graph.nodes.map((n) => [n.id, n.name, n.type, n.degree]).sort()).toEqual([
      ["1", "Apollo 13", "Movie", 1],
      ["2", "Tom Hanks", "Person", 1],
      ["3", "Ron Howard", "Person", 0],
      ["4", "Gary Sinise", "Person", 0],
    ]);
    expect(graph.edges).toEqual([{ id: "r1", source: "2", target: "1", weight: 1, description: "ACTED_IN" }]);
  });

  it("draws a relationship whose ends came back as ids only", () => {
    const graph = graphOfRows([{ r: { identity: 7, type: "KNOWS", start: 1, end: 2 } }]);
    expect(graph.nodes.map((n) => n.id).sort()).toEqual(["1", "2"]);
    expect(graph.edges[0]).toMatchObject({ id: "7", source: "1", target: "2" });
  });
});
