import { createHash } from "node:crypto";
import { z } from "zod";
import { type Clustering, type CommunityNode, clusterGraph } from "../community/cluster.js";
import { rememberRetiredIds } from "../community/community-aliases.js";
import { communityContentHash } from "../community/content-hash.js";
import { graphIndexOf } from "../community/graph-index.js";
import { continueCommunityIds, type RetiredCommunity } from "../community/id-continuity.js";
import { projectGraph } from "../community/project-graph.js";
import type { SplitCounts, WarmStart } from "../community/warm-start.js";
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
  /** How the connected components of each level were clustered (kept, warm-started, fresh). */
  splits: SplitCounts;
}

export interface CommunityRunOptions {
  /** Cluster from scratch, ignoring the previous hierarchy (`kgrag communities --rebuild --fresh`). */
  fresh?: boolean;
}

/**
 * Meta key: the node fingerprints of the graph the stored hierarchy was clustered from, with a
 * hash of that hierarchy. The hierarchy and the meta are two writes: a crash between them leaves
 * fingerprints beside another hierarchy, which the hash tells (the next clustering is then fresh).
 */
export const CLUSTERED_FINGERPRINTS = "communities.fingerprints";

/**
 * The warm start of a re-clustering: the stored hierarchy and the fingerprints of the graph it
 * was clustered from. None when turned off, asked to start fresh, or nothing was clustered yet.
 */
export async function warmStartOf(
  services: Pick<KgragServices, "store" | "config">,
  { fresh = false }: CommunityRunOptions = {},
  previous?: readonly CommunityRecord[],
): Promise<WarmStart | undefined> {
  const { store, config } = services;
  if (fresh || !config.community.warmStart) return undefined;
  const recorded = recordedFingerprints(await store.getMeta(CLUSTERED_FINGERPRINTS));
  if (!recorded) return undefined;
  const communities = previous ?? (await store.listCommunities());
  if (communities.length === 0 || recorded.hierarchy !== hierarchyHash(communities)) return undefined;
  const { fingerprints } = recorded;
  return {
    // Levels and members only: this goes to the built-ins' thread, reports would be dead weight.
    previous: {
      communities: communities.map(({ level, entityKeys }) => ({ level, entityKeys })),
      fingerprints,
    },
    tolerance: config.community.warmStartTolerance,
  };
}

const FingerprintsSchema = z.object({ hierarchy: z.string(), fingerprints: z.array(z.string()) });
type RecordedFingerprints = z.infer<typeof FingerprintsSchema>;

/** The recorded fingerprints; none when absent or unreadable (the next clustering is then fresh). */
function recordedFingerprints(recorded: string | undefined): RecordedFingerprints | undefined {
  if (!recorded) return undefined;
  try {
    const parsed = FingerprintsSchema.safeParse(JSON.parse(recorded));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Index step: re-clusters the whole graph, warm-started from the stored hierarchy (see
 * clusterGraph), and stores the new hierarchy with the fingerprints of the graph it clustered. A
 * community that mostly keeps its members keeps its id (id-continuity.ts); one whose id and content
 * hash are unchanged keeps its report, so only changed communities cost an LLM call in the report step.
 * Retired ids are remembered with their successor (community-aliases.ts). `graph` is the graph
 * as the run already read it.
 */
export async function createCommunities(
  services: KgragServices,
  graph?: GraphView,
  /** The clustering of this graph, started ahead (see clusterAhead); else clustered here. */
  hierarchy?: Promise<Clustering>,
  options: CommunityRunOptions = {},
): Promise<CreateCommunitiesResult> {
  const { store, config } = services;
  const view = graph ?? (await loadGraphView(store));
  const previous = await store.listCommunities();
  const clustered =
    (await hierarchy) ?? clusterView(config, view, await warmStartOf(services, options, previous));
  const { communities, retired } = clusterCommunities(config, view, previous, clustered);
  await store.replaceCommunities(communities);
  const record: RecordedFingerprints = {
    hierarchy: hierarchyHash(communities),
    fingerprints: clustered.fingerprints,
  };
  await store.setMeta(CLUSTERED_FINGERPRINTS, JSON.stringify(record));
  const current = new Set(communities.map((c) => c.id));
  await rememberRetiredIds(store, retired, current, config.community.retiredIdAliases);
  const retiredIds = retired.map((c) => c.id);
  if (retiredIds.length) await store.deleteVectors("communities", retiredIds);
  const levels = communities.reduce((max, c) => Math.max(max, c.level + 1), 0);
  const reused = communities.filter((c) => c.report !== null).length;
  // A graph without relationships, before and after (a new workspace whose inputs were all skipped),
  // has nothing to report: the line would precede the reasons the run gives for having no graph.
  if (communities.length > 0 || previous.length > 0) {
    services.progress.info(
      `Communities: ${communities.length} on ${levels} level(s); ${reused} unchanged keep their reports.${fallbackNote(clustered.splits, config.community.warmStartTolerance)}`,
    );
  }
  return { communities, levels, reused, splits: clustered.splits };
}

/** What the warm start reads of a hierarchy (levels and members), hashed. */
export function hierarchyHash(communities: readonly Pick<CommunityRecord, "level" | "entityKeys">[]): string {
  const lines = communities.map(
    ({ level, entityKeys }) => `${level}\u001f${[...entityKeys].sort().join("\u001f")}`,
  );
  return createHash("sha256").update(lines.sort().join("\n")).digest("hex");
}

/** Said when a warm start gave way to fresh clustering somewhere (its communities then moved more). */
function fallbackNote(splits: SplitCounts, tolerance: number): string {
  if (splits.fellBack === 0) return "";
  return ` Warm start: ${splits.fellBack} component(s) clustered afresh instead (modularity more than ${tolerance} below a fresh clustering's).`;
}

/** The clustering of a graph view, warm-started from `warmStart` when given. */
export function clusterView(
  config: Pick<KgragServices["config"], "community">,
  view: GraphView,
  warmStart?: WarmStart,
): Clustering {
  const { maxClusterSize, seed } = config.community;
  return clusterGraph(projectGraph(view.entities, view.relationships), { maxClusterSize, seed, warmStart });
}

export interface ClusteredCommunities {
  communities: CommunityRecord[];
  /** Ids of `previous` that no community keeps. */
  retired: RetiredCommunity[];
}

/**
 * The hierarchy of `view` as community records, without storing them: a community that overlaps
 * one of `previous` enough takes its id, and one whose id and content hash match keeps its report
 * (a kept id over changed members has another content hash, so its report is written again).
 */
export function clusterCommunities(
  config: Pick<KgragServices["config"], "community">,
  view: GraphView,
  previous: CommunityRecord[],
  /** The clustering of `view`'s graph when it was clustered already (else fresh, here). */
  clustered: Clustering = clusterView(config, view),
): ClusteredCommunities {
  const { nodes, retired } = continueCommunityIds(clustered.nodes, previous, config.community.keepIdOverlap);
  const index = graphIndexOf(view);
  const previousById = new Map(previous.map((c) => [c.id, c]));
  const communities = nodes.map((node) =>
    toRecord(node, communityContentHash(node.entityKeys, index), previousById),
  );
  return { communities, retired };
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
