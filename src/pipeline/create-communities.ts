import { type CommunityNode, clusterHierarchy } from "../community/cluster.js";
import { communityContentHash } from "../community/content-hash.js";
import { graphIndexOf } from "../community/graph-index.js";
import { projectGraph } from "../community/project-graph.js";
import type { KgragServices } from "../services.js";
import type { GraphView } from "../storage/graph-store.js";
import type { CommunityRecord } from "../types.js";
import { loadGraphView } from "./graph-view.js";

export interface CreateCommunitiesResult {
  communities: CommunityRecord[];
  /** Number of levels in the hierarchy (0 when the graph has no relationships). */
  levels: number;
  /** Communities whose report was carried over because their content did not change. */
  reused: number;
}

/**
 * Index step: re-clusters the whole graph (cheap) and stores the new hierarchy. A community whose
 * id (level + membership) and content hash are unchanged keeps its report, so only changed
 * communities cost an LLM call in the report step. `graph` is the graph as the run already read it.
 */
export async function createCommunities(
  services: KgragServices,
  graph?: GraphView,
  /** The hierarchy of this graph, clustered ahead (see clusterAhead); else clustered here. */
  hierarchy?: Promise<CommunityNode[]>,
): Promise<CreateCommunitiesResult> {
  const { store, config } = services;
  const view = graph ?? (await loadGraphView(store));
  const previous = await store.listCommunities();
  const communities = clusterCommunities(config, view, previous, await hierarchy);
  await store.replaceCommunities(communities);
  const current = new Set(communities.map((c) => c.id));
  const vanished = previous.map((c) => c.id).filter((id) => !current.has(id));
  if (vanished.length) await store.deleteVectors("communities", vanished);
  const levels = communities.reduce((max, c) => Math.max(max, c.level + 1), 0);
  const reused = communities.filter((c) => c.report !== null).length;
  services.progress.info(
    `Communities: ${communities.length} on ${levels} level(s); ${reused} unchanged keep their reports.`,
  );
  return { communities, levels, reused };
}

/**
 * The hierarchy of `view` as community records, without storing them: a community whose id and
 * content hash match one of `previous` keeps its report.
 */
export function clusterCommunities(
  config: Pick<KgragServices["config"], "community">,
  view: GraphView,
  previous: CommunityRecord[],
  /** The hierarchy of `view`'s graph when it was clustered already. */
  clustered?: CommunityNode[],
): CommunityRecord[] {
  const nodes =
    clustered ??
    clusterHierarchy(projectGraph(view.entities, view.relationships), {
      maxClusterSize: config.community.maxClusterSize,
      seed: config.community.seed,
    });
  const index = graphIndexOf(view);
  const previousById = new Map(previous.map((c) => [c.id, c]));
  return nodes.map((node) => toRecord(node, communityContentHash(node.entityKeys, index), previousById));
}

function toRecord(
  node: CommunityNode,
  contentHash: string,
  previousById: Map<string, CommunityRecord>,
): CommunityRecord {
  const before = previousById.get(node.id);
  const keep = before?.report != null && before.reportHash === contentHash;
  return {
    id: node.id,
    level: node.level,
    parentId: node.parentId,
    childIds: node.childIds,
    entityKeys: node.entityKeys,
    contentHash,
    report: keep ? before.report : null,
    reportHash: keep ? contentHash : null,
  };
}
