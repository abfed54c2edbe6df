import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { MultiUndirectedGraph, UndirectedGraph } from "graphology";
import { parse as parseGexf } from "graphology-gexf";
import { parse as parseGraphml } from "graphology-graphml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { exportGraph } from "../../src/export/export-graph.js";
import { xmlSafe } from "../../src/export/graph-snapshot.js";
import { writeGraphml } from "../../src/export/graphml-writer.js";
import { ARRAY_DELIMITER } from "../../src/export/neo4j-csv.js";
import { DESCRIPTION_SEPARATOR } from "../../src/merge/keys.js";
import type { GraphStore } from "../../src/storage/graph-store.js";
import { openSqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import type { CommunityRecord } from "../../src/types.js";
import {
  entityMention,
  makeEntity,
  makeRelationship,
  relationshipMention,
  seedDocument,
} from "../support/storage-fixtures.js";

let dir: string;
let store: GraphStore;

/** Two sources' fragments: markup, quotes and a control character, stored apart with <SEP>. */
const FRAGMENTS = ['Builds <rockets> & "engines"', "in Texas\u0007."];
const STORED = FRAGMENTS.join(DESCRIPTION_SEPARATOR);
/** The description as the readable exports write it: one fragment a line (a newline for the XML writers). */
const TRICKY = FRAGMENTS.join("\n");

/** A small graph with the text that breaks naive writers: markup, quotes, newlines, CJK, a control char. */
async function seedGraph(target: GraphStore): Promise<void> {
  const [c1, c2] = await seedDocument(target, "d1", [
    "Acme Corp builds rockets in Texas.",
    "北京大学 位于 北京。",
  ]);
  const acme = makeEntity("Acme Corp", {
    description: STORED,
    fragments: FRAGMENTS,
    sourceChunkIds: [c1!.id],
  });
  const texas = makeEntity("Texas", { type: "location", sourceChunkIds: [c1!.id] });
  const pku = makeEntity("北京大学", { sourceChunkIds: [c2!.id] });
  const beijing = makeEntity("北京", { type: "location", sourceChunkIds: [c2!.id] });
  const acmeTexas = makeRelationship("Acme Corp", "Texas", {
    keywords: ["location", "industry"],
    weight: 7.5,
    sourceChunkIds: [c1!.id],
  });
  const pkuBeijing = makeRelationship("北京大学", "北京", { weight: 3, sourceChunkIds: [c2!.id] });
  await target.commitChunkMerge(
    c1!.id,
    {
      entities: [
        entityMention("Acme Corp", c1!.id),
        entityMention("Texas", c1!.id),
        entityMention("Ghost", c1!.id),
      ],
      relationships: [relationshipMention("Acme Corp", "Texas", c1!.id)],
    },
    {
      upsertEntities: [acme, texas],
      upsertRelationships: [acmeTexas],
      deleteEntityKeys: [],
      deleteRelationshipKeys: [],
      history: [],
    },
  );
  await target.commitChunkMerge(
    c2!.id,
    { entities: [entityMention("北京大学", c2!.id), entityMention("北京", c2!.id)], relationships: [] },
    {
      upsertEntities: [pku, beijing],
      upsertRelationships: [pkuBeijing],
      deleteEntityKeys: [],
      deleteRelationshipKeys: [],
      history: [],
    },
  );
  const communities: CommunityRecord[] = [
    {
      id: "c1-0",
      level: 1,
      parentId: null,
      childIds: ["c0-0"],
      entityKeys: [acme.key, texas.key],
      contentHash: "h1",
      report: null,
      reportHash: null,
    },
    {
      id: "c0-0",
      level: 0,
      parentId: "c1-0",
      childIds: [],
      entityKeys: [acme.key, texas.key],
      contentHash: "h0",
      report: {
        title: "Acme in Texas",
        summary: "Rockets.",
        rating: 6.5,
        ratingExplanation: "",
        findings: [],
        markdown: "# Acme in Texas",
        method: "extractive",
      },
      reportHash: "h0",
    },
  ];
  await target.replaceCommunities(communities);
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "kgrag-export-"));
  store = await openSqliteStore(dir);
  await seedGraph(store);
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("export --format graphml", () => {
  it("is read back by graphology-graphml with every entity, relationship and attribute", async () => {
    const out = join(dir, "graph.graphml");
    const summary = await exportGraph(store, "graphml", out);
    expect(summary).toMatchObject({ nodes: 4, edges: 2, files: [out] });
    const graph = parseGraphml(UndirectedGraph, readFileSync(out, "utf8"));
    expect(graph.order).toBe(4);
    expect(graph.size).toBe(2);
    expect(graph.getNodeAttributes("acme corp")).toEqual({
      label: "Acme Corp",
      entityType: "organization",
      description: xmlSafe(TRICKY),
      sourceChunkIds: (await store.getEntities(["acme corp"]))[0]?.sourceChunkIds.join(";"),
      communities: "c1-0;c0-0",
      aliases: "",
    });
    expect(graph.getNodeAttribute("北京大学", "label")).toBe("北京大学");
    const edge = graph.edge("acme corp", "texas");
    expect(graph.getEdgeAttributes(edge)).toMatchObject({ weight: 7.5, keywords: "location, industry" });
  });
});

describe("export --format gexf", () => {
  it("is read back by graphology-gexf with the same nodes, edges and attributes", async () => {
    const out = join(dir, "graph.gexf");
    await exportGraph(store, "gexf", out);
    const text = readFileSync(out, "utf8");
    const graph = parseGexf(UndirectedGraph, text);
    const namespaces = [...text.matchAll(/xmlns(?::\w+)?="([^"]*)"/g)].map((m) => m[1]);
    expect(namespaces).toContain("http://gexf.net/1.3");
    // Every namespace an absolute URI with a host right after "//" (the 1.2 writer's had "http:///").
    for (const uri of namespaces) expect(uri).toMatch(/^https?:\/\/[a-z0-9]/i);
    expect(graph.order).toBe(4);
    expect(graph.size).toBe(2);
    expect(graph.getNodeAttributes("acme corp")).toMatchObject({
      label: "Acme Corp",
      entityType: "organization",
      description: xmlSafe(TRICKY),
    });
    const edge = graph.edge("北京", "北京大学");
    expect(graph.getEdgeAttribute(edge, "weight")).toBe(3);
  });
});

describe("export --format json", () => {
  it("holds every property of every entity and relationship, and the communities", async () => {
    const chunks: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        chunks.push(String(chunk));
        done();
      },
    });
    const summary = await exportGraph(store, "json", sink);
    expect(summary.files).toEqual([]);
    const json = JSON.parse(chunks.join(""));
    const entities = await store.listEntities();
    expect(json.nodes).toHaveLength(entities.length);
    const acme = json.nodes.find((n: { id: string }) => n.id === "acme corp");
    // For reading, not for import: the description readable, its fragments as stored.
    expect(acme).toEqual({
      id: "acme corp",
      ...entities.find((e) => e.key === "acme corp"),
      description: TRICKY,
      aliases: [],
      communities: ["c1-0", "c0-0"],
    });
    expect(acme.fragments).toEqual(FRAGMENTS);
    expect(chunks.join("")).not.toContain(DESCRIPTION_SEPARATOR);
    const relationships = await store.listRelationships();
    expect(json.edges.map((e: { key: string }) => e.key)).toEqual(relationships.map((r) => r.key));
    expect(json.communities).toEqual(await store.listCommunities());
    expect(json.chunks[0]).not.toHaveProperty("text");
  });
});

/** RFC 4180 rows (quoted fields may hold commas, doubled quotes and newlines). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ",") {
      row.push(field);
      field = "";
    } else if (char === "\n") {
      rows.push([...row, field]);
      row = [];
      field = "";
    } else field += char;
  }
  return rows;
}

describe("export --format neo4j-csv", () => {
  it("writes headed CSV files for neo4j-admin import in kgrag's graph model", async () => {
    const out = join(dir, "csv");
    await expect(exportGraph(store, "neo4j-csv", new Writable())).rejects.toThrow(/give a directory/);
    const summary = await exportGraph(store, "neo4j-csv", out, { workspace: "team-a" });
    expect(readdirSync(out).sort()).toEqual([...summary.files].sort());
    expect(summary.files).toContain("nodes_entities.csv");
    expect(summary.files).toContain("relationships.csv");

    const [header, ...entities] = parseCsv(readFileSync(join(out, "nodes_entities.csv"), "utf8"));
    expect(header?.slice(0, 2)).toEqual(["key:ID(Entity)", "workspace"]);
    const column = (name: string) => header!.indexOf(name);
    const acme = entities.find((r) => r[0] === "acme corp")!;
    // The CSV imports into a kgrag Neo4j workspace: the description as stored, separators and all.
    expect(acme[column("description")]).toBe(STORED);
    expect(acme[column("fragments:string[]")]?.split(ARRAY_DELIMITER)).toEqual(FRAGMENTS);
    expect(acme[column("workspace")]).toBe("team-a");
    // A mention of an entity without a record (Ghost) gets an anchor node, so its MENTIONS edge imports.
    const ghost = entities.find((r) => r[0] === "ghost")!;
    expect(ghost[column("anchor:boolean")]).toBe("true");

    const [relHeader, ...rels] = parseCsv(readFileSync(join(out, "relationships.csv"), "utf8"));
    expect(relHeader?.slice(0, 2)).toEqual([":START_ID(Entity)", ":END_ID(Entity)"]);
    expect(rels).toHaveLength(2);
    const [, ...mentions] = parseCsv(readFileSync(join(out, "relationships_mentions.csv"), "utf8"));
    expect(mentions).toHaveLength(5);
    const [, ...parents] = parseCsv(readFileSync(join(out, "relationships_parent.csv"), "utf8"));
    expect(parents).toEqual([["c0-0", "c1-0", "PARENT"]]);
    expect(readFileSync(join(out, "import-command.txt"), "utf8")).toContain('--array-delimiter="U+001E"');
  });
});

describe("writeGraphml", () => {
  it("declares typed keys and round-trips booleans, ints, doubles, strings and mixed values", () => {
    const graph = new MultiUndirectedGraph();
    graph.addNode("a&b", { flag: true, count: 3, ratio: 0.5, name: "<x>", mixed: 1 });
    graph.addNode("c", { flag: false, count: 4, ratio: 2, name: "'y'", mixed: "text" });
    graph.addEdgeWithKey("e1", "a&b", "c", { weight: 1 });
    graph.addEdgeWithKey("e2", "a&b", "c", { weight: 2.25 });
    const text = writeGraphml(graph);
    expect(text).toContain('attr.name="count" attr.type="int"');
    expect(text).toContain('attr.name="ratio" attr.type="double"');
    const back = parseGraphml(MultiUndirectedGraph, text);
    expect(back.getNodeAttributes("a&b")).toEqual({
      flag: true,
      count: 3,
      ratio: 0.5,
      name: "<x>",
      mixed: "1",
    });
    expect(back.getNodeAttributes("c")).toMatchObject({ flag: false, ratio: 2, name: "'y'", mixed: "text" });
    expect(back.size).toBe(2);
    expect(back.getEdgeAttribute("e2", "weight")).toBe(2.25);
  });
});
