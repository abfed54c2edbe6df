import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GraphReads } from "../../src/server/graph/graph-reads.js";
import { NeighbourhoodCache } from "../../src/server/graph/neighbourhood-cache.js";
import { openSqliteStore, type SqliteGraphStore } from "../../src/storage/sqlite/sqlite-store.js";
import { changes, makeEntity, makeRelationship } from "../support/storage-fixtures.js";

/**
 * A chain Hub - A - D - Far with side branches: Hub - B (2), Hub - C (2), A - B (1), C - E (3).
 * Hub - A weighs 5 and A - D 4, so the strongest path leads away from Hub through A.
 */
const EDGES: [string, string, number][] = [
  ["Hub", "A", 5],
  ["Hub", "B", 2],
  ["Hub", "C", 2],
  ["A", "B", 1],
  ["A", "D", 4],
  ["C", "E", 3],
  ["D", "Far", 1],
];

describe("the server's neighbourhood of an entity", () => {
  let dir: string;
  let store: SqliteGraphStore;
  let reads: GraphReads;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "kgrag-neighbourhood-"));
    store = await openSqliteStore(dir);
    await store.applyGraphChanges(
      changes({
        upsertEntities: ["Hub", "A", "B", "C", "D", "E", "Far"].map((name) => makeEntity(name)),
        upsertRelationships: EDGES.map(([a, b, weight]) => makeRelationship(a, b, { weight })),
      }),
    );
    reads = new GraphReads(store);
  });

  afterAll(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const names = (graph: { nodes: { name: string }[] } | undefined) => graph?.nodes.map((n) => n.name).sort();
  const pairs = (graph: { edges: { source: string; target: string }[] } | undefined) =>
    graph?.edges.map((e) => `${e.source}-${e.target}`);

  it("holds every entity within the depth and every relationship among them, strongest first", async () => {
    const one = await reads.neighbourhood("hub", 1, 100, 100);
    expect(names(one)).toEqual(["A", "B", "C", "Hub"]);
    expect(pairs(one)).toEqual(["A-Hub", "B-Hub", "C-Hub", "A-B"]);
    expect(one?.truncated).toBe(false);
    const two = await reads.neighbourhood("Hub", 2, 100, 100);
    expect(names(two)).toEqual(["A", "B", "C", "D", "E", "Hub"]);
    expect(pairs(two)).toEqual(["A-Hub", "A-D", "C-E", "B-Hub", "C-Hub", "A-B"]);
    expect(names(await reads.neighbourhood("Hub", 3, 100, 100))).toContain("Far");
    expect(names(await reads.neighbourhood("Hub", 0, 100, 100))).toEqual(["Hub"]);
  });

  it("keeps the strongest ties when a cap cuts the graph, and says so", async () => {
    const nodesCut = await reads.neighbourhood("Hub", 2, 3, 100);
    // A (5) and then B before C (both 2, by key); the second hop has no room left.
    expect(names(nodesCut)).toEqual(["A", "B", "Hub"]);
    expect(pairs(nodesCut)).toEqual(["A-Hub", "B-Hub", "A-B"]);
    expect(nodesCut?.truncated).toBe(true);
    const edgesCut = await reads.neighbourhood("Hub", 1, 100, 2);
    expect(pairs(edgesCut)).toEqual(["A-Hub", "B-Hub"]);
    expect(edgesCut?.truncated).toBe(true);
    // Exactly full is not cut: every neighbour fitted.
    expect((await reads.neighbourhood("Hub", 1, 4, 4))?.truncated).toBe(false);
    expect(await reads.neighbourhood("Nobody", 2, 100, 100)).toBeUndefined();
  });

  it("reads the store once per hop and once for the edges, never per entity", async () => {
    const perEntity = vi.spyOn(store, "relationshipsOf");
    const hops = vi.spyOn(store, "neighboursOf");
    const among = vi.spyOn(store, "relationshipsAmong");
    await reads.neighbourhood("Hub", 3, 100, 100);
    expect(perEntity).not.toHaveBeenCalled();
    expect(hops).toHaveBeenCalledTimes(3);
    expect(among).toHaveBeenCalledTimes(1);
    vi.restoreAllMocks();
  });
});

describe("the server's neighbourhood as cached JSON", () => {
  let dir: string;
  let store: SqliteGraphStore;
  /** Another connection to the same workspace: a job's process or `kgrag index` writing meanwhile. */
  let otherProcess: SqliteGraphStore;
  let reads: GraphReads;
  let cache: NeighbourhoodCache;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "kgrag-neighbourhood-json-"));
    store = await openSqliteStore(dir);
    otherProcess = await openSqliteStore(dir);
    await store.applyGraphChanges(
      changes({
        upsertEntities: ["Hub", "A", "B", "C", "D", "E", "Far"].map((name) => makeEntity(name)),
        upsertRelationships: EDGES.map(([a, b, weight]) => makeRelationship(a, b, { weight })),
      }),
    );
    cache = new NeighbourhoodCache({ maxEntries: 10, maxBytes: 1024 * 1024, maxEdgePieces: 1000 }, () =>
      store.dataGeneration(),
    );
    reads = new GraphReads(store, cache);
  });

  afterAll(async () => {
    await otherProcess.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const drawn = async (name: string, depth = 2, maxNodes = 100, maxEdges = 100) => {
    const found = await reads.neighbourhoodJson(name, depth, maxNodes, maxEdges);
    return found && { hit: found.hit, graph: JSON.parse(found.json.toString("utf8")) as Graph };
  };
  type Graph = {
    nodes: { name: string; type: string }[];
    edges: { source: string; target: string; description: string; weight: number }[];
  };
  const edgeOf = (graph: Graph | undefined, a: string, b: string) =>
    graph?.edges.find((e) => [e.source, e.target].sort().join() === [a, b].sort().join());

  /** The JSON text neighbourhood() serialises to, which the cached bytes must equal exactly. */
  const plainJson = async (from: GraphReads, name: string, depth: number) =>
    JSON.stringify(await from.neighbourhood(name, depth, 100, 100));

  it("is the JSON of neighbourhood(), kept per request until the data changes", async () => {
    const first = await drawn("Hub");
    expect(first).toEqual({ hit: false, graph: await reads.neighbourhood("Hub", 2, 100, 100) });
    const bytes = await reads.neighbourhoodJson("Hub", 2, 100, 100);
    expect(bytes?.json.toString("utf8")).toBe(await plainJson(reads, "Hub", 2));
    expect(await drawn("hub")).toEqual({ hit: true, graph: first?.graph });
    // Another depth or cap is another answer.
    expect((await drawn("Hub", 1))?.hit).toBe(false);
    expect((await drawn("Hub", 2, 3))?.graph.nodes).toHaveLength(3);
    expect(await drawn("Nobody")).toBeUndefined();
  });

  it("shows another connection's commit at once: a new relationship, a new description, a new type", async () => {
    expect(edgeOf((await drawn("Hub", 3))?.graph, "E", "Far")).toBeUndefined();
    await otherProcess.applyGraphChanges(
      changes({
        upsertEntities: [makeEntity("Far", { type: "person" })],
        upsertRelationships: [
          makeRelationship("E", "Far", { weight: 9 }),
          makeRelationship("Hub", "A", { weight: 5, description: "Hub owns A." }),
        ],
      }),
    );
    const after = await drawn("Hub", 3);
    expect(after?.hit).toBe(false);
    expect(edgeOf(after?.graph, "E", "Far")?.weight).toBe(9);
    expect(edgeOf(after?.graph, "Hub", "A")?.description).toBe("Hub owns A.");
    expect(after?.graph.nodes.find((n) => n.name === "Far")?.type).toBe("person");
    expect((await drawn("Hub", 3))?.hit).toBe(true);
  });

  it("shows its own connection's deletion, and forgets every answer when told to", async () => {
    expect(edgeOf((await drawn("Hub"))?.graph, "C", "E")).toBeDefined();
    await store.applyGraphChanges(changes({ deleteRelationshipKeys: [makeRelationship("C", "E").key] }));
    expect(edgeOf((await drawn("Hub"))?.graph, "C", "E")).toBeUndefined();
    expect(cache.size).toBeGreaterThan(0);
    reads.forget();
    expect(cache.size).toBe(0);
    expect((await drawn("Hub"))?.hit).toBe(false);
  });

  it("reuses edges' JSON across answers only for the data it was made from, whole answers kept or not", async () => {
    for (const maxEdgePieces of [1000, 2]) {
      const piecesOnly = new NeighbourhoodCache({ maxEntries: 0, maxBytes: 1024, maxEdgePieces }, () =>
        store.dataGeneration(),
      );
      const fresh = new GraphReads(store, piecesOnly);
      const json = async (name: string, depth: number) =>
        (await fresh.neighbourhoodJson(name, depth, 100, 100))?.json.toString("utf8");
      expect(await json("Hub", 2)).toBe(await plainJson(fresh, "Hub", 2));
      expect(await json("D", 2)).toBe(await plainJson(fresh, "D", 2));
      const description = `A and D, take ${maxEdgePieces}.`;
      await otherProcess.applyGraphChanges(
        changes({ upsertRelationships: [makeRelationship("A", "D", { weight: 4, description })] }),
      );
      const after = await json("D", 2);
      expect(after).toBe(await plainJson(fresh, "D", 2));
      expect(after).toContain(description);
      expect((await fresh.neighbourhoodJson("D", 2, 100, 100))?.hit).toBe(false);
    }
  });
});
