/**
 * Community hierarchy on a realistic graph: a seeded degree-corrected stochastic block model with
 * heavy-tailed block sizes and degrees, sized like GraphRAG's "A Christmas Carol" fixture (529
 * entities, 978 relationships; GraphRAG's Leiden gives 122 communities on 4 levels, 23/65/32/2).
 * Prints levels, communities per level, size distributions and timings for clustering and for the
 * offline report step (contexts + extractive reports, bottom-up).
 * Run: npx tsx bench/communities.ts [--seeds 5] [--workspace DIR (an existing kgrag workspace)]
 */
import { performance } from "node:perf_hooks";
import { type CommunityNode, clusterHierarchy } from "../src/community/cluster.js";
import { ExtractiveReportWriter } from "../src/community/extractive-report-writer.js";
import { GraphIndex } from "../src/community/graph-index.js";
import { projectGraph } from "../src/community/project-graph.js";
import { buildReportContext, type ChildReport } from "../src/community/report-context.js";
import { createKgrag } from "../src/kgrag.js";
import type { EntityRecord, RelationshipRecord } from "../src/types.js";
import { countTokens } from "../src/util/tokens.js";
import { entity, relationship } from "../test/support/community-fake-store.js";
import { blockModelGraph, nodesOf } from "../test/support/community-graphs.js";

const MAX_CLUSTER_SIZE = 10;

interface Graph {
  name: string;
  entities: EntityRecord[];
  relationships: RelationshipRecord[];
}

function syntheticGraph(seed: number): Graph {
  const edges = blockModelGraph({ nodes: 529, edges: 978, blocks: 45, mixing: 0.8, seed });
  const keys = nodesOf(edges);
  return {
    name: `block model (seed ${seed})`,
    entities: keys.map((k) =>
      entity(k, `${k} takes part in several events and meets other people along the way.`),
    ),
    relationships: edges.map(([a, b, w]) =>
      relationship(a, b, w, `${a} and ${b} meet repeatedly and influence each other.`),
    ),
  };
}

async function workspaceGraph(workspace: string): Promise<Graph> {
  const kgrag = await createKgrag({ config: { workspace } });
  try {
    const { store } = kgrag.services;
    return {
      name: workspace,
      entities: await store.listEntities(),
      relationships: await store.listRelationships(),
    };
  } finally {
    await kgrag.close();
  }
}

function describeHierarchy(graph: Graph, nodes: CommunityNode[], clusterMs: number): void {
  const levels = [...new Set(nodes.map((n) => n.level))].sort((a, b) => a - b);
  const clustered = new Set(nodes.filter((n) => n.level === 0).flatMap((n) => n.entityKeys)).size;
  console.log(
    `\n== ${graph.name}: ${graph.entities.length} entities, ${graph.relationships.length} relationships`,
  );
  console.log(
    `${nodes.length} communities on ${levels.length} levels (${levels.map((l) => nodes.filter((n) => n.level === l).length).join("/")}); ` +
      `${clustered} entities clustered, ${graph.entities.length - clustered} without relationships; ` +
      `cluster time ${clusterMs.toFixed(1)} ms`,
  );
  for (const level of levels) {
    const sizes = nodes
      .filter((n) => n.level === level)
      .map((n) => n.entityKeys.length)
      .sort((a, b) => a - b);
    const leaves = nodes.filter((n) => n.level === level && n.childIds.length === 0).length;
    console.log(
      `  level ${level}: ${sizes.length} communities (${leaves} leaves), sizes min ${sizes[0]} / median ${sizes[Math.floor(sizes.length / 2)]} / max ${sizes.at(-1)}; ` +
        `histogram ${histogram(sizes)}`,
    );
  }
  const unsplittable = nodes.filter((n) => n.unsplittable);
  const oversized = nodes.filter((n) => n.entityKeys.length > MAX_CLUSTER_SIZE && n.childIds.length === 0);
  console.log(
    `  leaves over ${MAX_CLUSTER_SIZE}: ${oversized.length} (all marked unsplittable: ${oversized.every((n) => n.unsplittable)}; sizes ${unsplittable.map((n) => n.entityKeys.length).join(", ") || "-"})`,
  );
}

function histogram(sizes: number[]): string {
  const buckets: [string, (n: number) => boolean][] = [
    ["1", (n) => n === 1],
    ["2-3", (n) => n >= 2 && n <= 3],
    ["4-10", (n) => n >= 4 && n <= 10],
    ["11-30", (n) => n >= 11 && n <= 30],
    ["31-100", (n) => n >= 31 && n <= 100],
    [">100", (n) => n > 100],
  ];
  return buckets
    .map(([label, test]) => [label, sizes.filter(test).length] as const)
    .filter(([, count]) => count > 0)
    .map(([label, count]) => `${label}:${count}`)
    .join(" ");
}

async function offlineReports(graph: Graph, nodes: CommunityNode[]): Promise<void> {
  const start = performance.now();
  const index = new GraphIndex(graph.entities, graph.relationships);
  const writer = new ExtractiveReportWriter();
  const reports = new Map<string, ChildReport>();
  let substituted = 0;
  let omitted = 0;
  let contextTokens = 0;
  for (const node of [...nodes].sort((a, b) => b.level - a.level)) {
    const context = buildReportContext({
      community: node,
      index,
      childReports: node.childIds.flatMap((id) => reports.get(id) ?? []),
      budget: 8000,
    });
    if (context.childReports.length) substituted++;
    omitted += context.omittedRelationships;
    contextTokens += countTokens(context.text);
    reports.set(node.id, { id: node.id, entityKeys: node.entityKeys, report: await writer.write(context) });
  }
  const internal = nodes.reduce((sum, n) => sum + index.internalRelationships(n.entityKeys).length, 0);
  console.log(
    `  offline reports: ${nodes.length} in ${(performance.now() - start).toFixed(0)} ms; ` +
      `${internal} internal edges over all contexts, ${omitted} left out for budget; ` +
      `${substituted} contexts used children's reports; mean context ${Math.round(contextTokens / Math.max(1, nodes.length))} tokens`,
  );
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const seeds = Number(args[args.indexOf("--seeds") + 1]) || 5;
  const workspace = args.includes("--workspace") ? args[args.indexOf("--workspace") + 1] : undefined;
  const graphs = workspace
    ? [await workspaceGraph(workspace)]
    : Array.from({ length: seeds }, (_, i) => syntheticGraph(i + 1));
  for (const graph of graphs) {
    const start = performance.now();
    const nodes = clusterHierarchy(projectGraph(graph.entities, graph.relationships), {
      maxClusterSize: MAX_CLUSTER_SIZE,
      seed: 42,
    });
    describeHierarchy(graph, nodes, performance.now() - start);
    await offlineReports(graph, nodes);
  }
}

await main();
