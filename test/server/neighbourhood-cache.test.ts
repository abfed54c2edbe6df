import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import {
  ATLAS_DOCS,
  offlineWorkspace,
  type Running,
  removeAll,
  startServer,
  tempDir,
} from "../support/server.js";
import { changes, makeEntity, makeRelationship } from "../support/storage-fixtures.js";

const dirs: string[] = [];
let cachedDir: string;
let cached: Running;
let uncached: Running;

beforeAll(async () => {
  const [one, two] = [await tempDir("neighbourhood-cache"), await tempDir("neighbourhood-cache-off")];
  dirs.push(one, two);
  cachedDir = one;
  await offlineWorkspace(one, ATLAS_DOCS);
  await offlineWorkspace(two, ATLAS_DOCS);
  cached = await startServer({ workspaces: [one], server: { queryWorkers: 0 } });
  uncached = await startServer({
    workspaces: [two],
    server: { queryWorkers: 0, neighbourhoodCache: { maxEntries: 0 } },
  });
}, 60_000);

afterAll(async () => {
  await cached?.stop();
  await uncached?.stop();
  await removeAll(dirs);
});

interface Graph {
  nodes: { id: string; name: string; type: string; degree: number; community: string | null }[];
  edges: { id: string; source: string; target: string; description: string; weight: number }[];
  truncated: boolean;
}

async function neighbourhood(running: Running, name: string, depth = 2) {
  const response = await fetch(
    `${running.url}/api/v1/graph/neighbourhood?name=${encodeURIComponent(name)}&depth=${depth}&maxNodes=500`,
  );
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
  const text = await response.text();
  return { cache: response.headers.get("x-kgrag-cache"), text, graph: JSON.parse(text) as Graph };
}

const post = (running: Running, path: string, body: unknown) =>
  fetch(`${running.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("kgrag serve: the neighbourhood cache", () => {
  it("answers a repeated request from the cache with the same JSON as a server without one", async () => {
    const first = await neighbourhood(cached, "Mara Okafor");
    expect(first.cache).toBe("miss");
    expect(first.graph.nodes.length).toBeGreaterThan(3);
    const again = await neighbourhood(cached, "Mara Okafor");
    expect(again).toEqual({ ...first, cache: "hit" });
    expect((await neighbourhood(cached, "Mara Okafor", 1)).cache).toBe("miss");
    const plain = await neighbourhood(uncached, "Mara Okafor");
    expect(plain.text).toBe(first.text);
  });

  it("shows a curation route's change at once", async () => {
    await neighbourhood(cached, "Mara Okafor");
    const edited = await post(cached, "/api/v1/entities/edit", { entity: "Lumen Robotics", type: "guild" });
    expect(edited.status).toBe(200);
    const after = await neighbourhood(cached, "Mara Okafor");
    expect(after.cache).toBe("miss");
    expect(after.graph.nodes.find((n) => n.name === "Lumen Robotics")?.type).toBe("guild");
  });

  it("shows another process's commit to the workspace at once", async () => {
    expect((await neighbourhood(cached, "Mara Okafor")).graph.nodes.map((n) => n.name)).not.toContain(
      "Ines Carvalho",
    );
    const other = await openSqliteStore(cachedDir);
    try {
      await other.applyGraphChanges(
        changes({
          upsertEntities: [makeEntity("Ines Carvalho", { type: "person" })],
          upsertRelationships: [
            makeRelationship("Mara Okafor", "Ines Carvalho", {
              weight: 50,
              description: "Mentored by Mara.",
            }),
          ],
        }),
      );
    } finally {
      await other.close();
    }
    const after = await neighbourhood(cached, "Mara Okafor");
    expect(after.cache).toBe("miss");
    expect(after.graph.nodes.map((n) => n.name)).toContain("Ines Carvalho");
    // The strongest relationship comes first.
    expect(after.graph.edges[0]).toMatchObject({ description: "Mentored by Mara.", weight: 50 });
  });

  it("is off with maxEntries 0", async () => {
    expect((await neighbourhood(uncached, "Mara Okafor")).cache).toBe("miss");
    expect((await neighbourhood(uncached, "Mara Okafor")).cache).toBe("miss");
  });
});
