import { CommunityIds, type CommunityNode, sortNodes } from "./cluster.js";
import { byText } from "./project-graph.js";

/** What id continuity reads of the previous run's hierarchy. */
export interface PreviousCommunity {
  id: string;
  level: number;
  entityKeys: readonly string[];
}

/** A previous id that no new community took over. */
export interface RetiredCommunity {
  id: string;
  /** The new community at its level holding most of its members; null when none holds any. */
  successorId: string | null;
}

export interface ContinuedHierarchy {
  /** The new hierarchy under its final ids, parent and child links included, in sortNodes order. */
  nodes: CommunityNode[];
  /** Previous ids that are gone, by id. */
  retired: RetiredCommunity[];
}

interface Candidate {
  node: CommunityNode;
  previous: PreviousCommunity;
  shared: number;
  /** Jaccard: shared members over the members of both. */
  overlap: number;
}

/**
 * Carries the previous run's community ids over to a freshly clustered hierarchy, so that a
 * citation, a bookmark or an API link to a community survives a document that moved a few of its
 * members. A new community takes the id of the previous community at its level whose membership
 * it overlaps by at least `minOverlap` (see matchPreviousCommunities); the others keep their hash
 * ids. A pure function of its inputs: the same graph and previous hierarchy give the same ids.
 */
export function continueCommunityIds(
  nodes: readonly CommunityNode[],
  previous: readonly PreviousCommunity[],
  minOverlap: number,
): ContinuedHierarchy {
  if (previous.length === 0) return { nodes: [...nodes], retired: [] };
  const inherited = matchPreviousCommunities(nodes, previous, minOverlap);
  const renamed = renameNodes(nodes, finalIds(nodes, inherited));
  return { nodes: renamed, retired: retiredCommunities(previous, renamed) };
}

/**
 * Pairs new communities (by their hash id) with previous ones at the same level (by id): every
 * pair overlapping by at least `minOverlap`, best first (overlap, then shared members, then ids),
 * each side used at most once. Above 0.5 a community can overlap only one other that much (the
 * communities of a level are disjoint), so the order decides only at or below it.
 */
export function matchPreviousCommunities(
  nodes: readonly CommunityNode[],
  previous: readonly PreviousCommunity[],
  minOverlap: number,
): Map<string, string> {
  const holders = holdersByLevel(previous);
  const candidates = nodes.flatMap((node) => candidatesOf(node, holders.get(node.level), minOverlap));
  candidates.sort(
    (a, b) =>
      b.overlap - a.overlap ||
      b.shared - a.shared ||
      byText(a.node.id, b.node.id) ||
      byText(a.previous.id, b.previous.id),
  );
  const matched = new Map<string, string>();
  const taken = new Set<string>();
  for (const { node, previous: match } of candidates) {
    if (matched.has(node.id) || taken.has(match.id)) continue;
    matched.set(node.id, match.id);
    taken.add(match.id);
  }
  return matched;
}

/** Per level, the communities holding each entity key. */
function holdersByLevel<T extends PreviousCommunity>(
  communities: readonly T[],
): Map<number, Map<string, T[]>> {
  const byLevel = new Map<number, Map<string, T[]>>();
  for (const community of communities) {
    const holders = byLevel.get(community.level) ?? new Map<string, T[]>();
    byLevel.set(community.level, holders);
    for (const key of community.entityKeys) {
      const holding = holders.get(key);
      if (holding) holding.push(community);
      else holders.set(key, [community]);
    }
  }
  return byLevel;
}

function sharedMembers<T>(
  entityKeys: readonly string[],
  holders: Map<string, T[]> | undefined,
): Map<T, number> {
  const shared = new Map<T, number>();
  for (const key of entityKeys) {
    for (const holder of holders?.get(key) ?? []) shared.set(holder, (shared.get(holder) ?? 0) + 1);
  }
  return shared;
}

function candidatesOf(
  node: CommunityNode,
  holders: Map<string, PreviousCommunity[]> | undefined,
  minOverlap: number,
): Candidate[] {
  return [...sharedMembers(node.entityKeys, holders)].flatMap(([previous, shared]) => {
    const overlap = shared / (node.entityKeys.length + previous.entityKeys.length - shared);
    return overlap >= minOverlap ? [{ node, previous, shared, overlap }] : [];
  });
}

/**
 * Hash id to final id. Inherited ids are reserved first, so a hash id that happens to equal one of
 * them (an old id minted for a membership that has drifted since) gets a suffix instead.
 */
function finalIds(nodes: readonly CommunityNode[], inherited: Map<string, string>): Map<string, string> {
  const ids = new CommunityIds();
  for (const id of inherited.values()) ids.claim(id);
  const final = new Map<string, string>();
  for (const node of [...nodes].sort((a, b) => byText(a.id, b.id))) {
    final.set(node.id, inherited.get(node.id) ?? ids.claim(node.id));
  }
  return final;
}

function renameNodes(nodes: readonly CommunityNode[], final: Map<string, string>): CommunityNode[] {
  const rename = (id: string) => final.get(id) ?? id;
  const renamed = sortNodes(
    nodes.map((node) => ({
      ...node,
      id: rename(node.id),
      parentId: node.parentId === null ? null : rename(node.parentId),
      childIds: node.childIds.map(rename),
    })),
  );
  // Children in the hierarchy's order, as clustering lists them.
  const position = new Map(renamed.map((node, i) => [node.id, i]));
  for (const node of renamed) {
    node.childIds.sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0));
  }
  return renamed;
}

function retiredCommunities(
  previous: readonly PreviousCommunity[],
  nodes: readonly CommunityNode[],
): RetiredCommunity[] {
  const live = new Set(nodes.map((node) => node.id));
  const holders = holdersByLevel(nodes);
  return previous
    .filter((community) => !live.has(community.id))
    .map((community) => ({ id: community.id, successorId: successorOf(community, holders) }))
    .sort((a, b) => byText(a.id, b.id));
}

/** The new community at the same level sharing most members; a tie goes to the one holding the first shared key. */
function successorOf(
  community: PreviousCommunity,
  holders: Map<number, Map<string, CommunityNode[]>>,
): string | null {
  let best: { id: string; shared: number } | null = null;
  for (const [node, shared] of sharedMembers(community.entityKeys, holders.get(community.level))) {
    if (!best || shared > best.shared) best = { id: node.id, shared };
  }
  return best?.id ?? null;
}
