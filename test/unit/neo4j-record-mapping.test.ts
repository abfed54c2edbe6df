import neo4j from "neo4j-driver";
import { describe, expect, it } from "vitest";
import { recordToPlain, toPlain } from "../../src/storage/neo4j/record-mapping.js";

const { Node, Relationship, Path, PathSegment, Record } = neo4j.types;
const { Date: CypherDate, DateTime, LocalDateTime, Duration } = neo4j.types;

describe("toPlain", () => {
  it("turns neo4j Integers into numbers, and into text when a double cannot hold them", () => {
    expect(toPlain(neo4j.int(42))).toBe(42);
    expect(toPlain(neo4j.int(-7))).toBe(-7);
    expect(toPlain(neo4j.int("9007199254740993"))).toBe("9007199254740993");
    expect(toPlain(12n)).toBe(12);
    expect(toPlain(2n ** 60n)).toBe("1152921504606846976");
  });

  it("keeps floats, strings, booleans and null as they are (undefined becomes null)", () => {
    expect(toPlain(0.25)).toBe(0.25);
    expect(toPlain("text")).toBe("text");
    expect(toPlain(false)).toBe(false);
    expect(toPlain(null)).toBeNull();
    expect(toPlain(undefined)).toBeNull();
  });

  it("maps lists and maps recursively", () => {
    expect(toPlain([neo4j.int(1), [neo4j.int(2), null], { n: neo4j.int(3), s: "x" }])).toEqual([
      1,
      [2, null],
      { n: 3, s: "x" },
    ]);
  });

  it("writes temporal values as ISO-8601 text", () => {
    expect(toPlain(new CypherDate(2024, 3, 9))).toBe("2024-03-09");
    expect(toPlain(new DateTime(2024, 3, 9, 13, 5, 0, 0, 0))).toBe("2024-03-09T13:05:00Z");
    expect(toPlain(new LocalDateTime(2024, 3, 9, 13, 5, 30, 0))).toBe("2024-03-09T13:05:30");
    expect(toPlain(new Duration(0, 2, 3600, 0))).toBe("P2DT1H");
  });

  it("writes a duration without a time part as Neo4j does, with no dangling T", () => {
    expect(toPlain(new Duration(0, 1, 0, 0))).toBe("P1D");
    expect(toPlain(new Duration(14, 0, 0, 0))).toBe("P1Y2M");
    expect(toPlain(new Duration(0, 0, 0, 0))).toBe("PT0S");
    expect(toPlain([new Duration(0, 3, 0, 0)])).toEqual(["P3D"]);
  });

  it("turns nodes, relationships and paths into small objects with plain properties", () => {
    const alice = new Node(neo4j.int(1), ["Entity"], { key: "alice", degree: neo4j.int(3) }, "4:x:1");
    const bob = new Node(neo4j.int(2), ["Entity"], { key: "bob" }, "4:x:2");
    const knows = new Relationship(
      neo4j.int(9),
      neo4j.int(1),
      neo4j.int(2),
      "RELATED",
      { weight: 2.5, keywords: ["work"] },
      "5:x:9",
      "4:x:1",
      "4:x:2",
    );
    expect(toPlain(alice)).toEqual({
      elementId: "4:x:1",
      labels: ["Entity"],
      properties: { key: "alice", degree: 3 },
    });
    expect(toPlain(knows)).toEqual({
      elementId: "5:x:9",
      type: "RELATED",
      startElementId: "4:x:1",
      endElementId: "4:x:2",
      properties: { weight: 2.5, keywords: ["work"] },
    });
    const path = new Path(alice, bob, [new PathSegment(alice, knows, bob)]);
    const plainPath = toPlain(path) as { nodes: { elementId: string }[]; relationships: { type: string }[] };
    expect(plainPath.nodes.map((n) => n.elementId)).toEqual(["4:x:1", "4:x:2"]);
    expect(plainPath.relationships.map((r) => r.type)).toEqual(["RELATED"]);
  });

  it("turns points and native vectors into plain data", () => {
    expect(toPlain(new neo4j.types.Point(neo4j.int(7203), 1.5, 2))).toEqual({ srid: 7203, x: 1.5, y: 2 });
    expect(toPlain(neo4j.vector(Float64Array.from([0.5, -1])))).toEqual([0.5, -1]);
  });
});

describe("recordToPlain", () => {
  it("keys every field by its column name", () => {
    const record = new Record(["entity", "degree", "missing"], [{ key: "alice" }, neo4j.int(4), null]);
    expect(recordToPlain(record)).toEqual({ entity: { key: "alice" }, degree: 4, missing: null });
  });
});
