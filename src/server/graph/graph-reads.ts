import { successorOfRetiredId } from "../../community/community-aliases.js";
import { reportCitations } from "../../community/report-citations.js";
import { readableDescription } from "../../merge/description-text.js";
import { entityKey, relationshipKey, splitRelationshipKey } from "../../merge/keys.js";
import type { EntityLabel, GraphStore } from "../../storage/graph-store.js";
import type { ChunkRecord, CommunityRecord, EntityRecord, RelationshipRecord } from "../../types.js";
import type { CommunityDetail } from "./community-detail.js";
import type {
  CachedNeighbourhood,
  NeighbourhoodCache,
  NeighbourhoodGraph,
  NeighbourhoodRequest,
} from "./neighbourhood-cache.js";

/** An entity as lists show it (a description past this length is shortened). */
const SHORT_DESCRIPTION = 300;
/** Source passages shown with an entity or a relationship. */
const MAX_SOURCES = 50;
/** The most connected entities kept ready (the API's list cap). */
const MAX_POPULAR = 2000;
/** Relationships listed with an entity, strongest first. */
const MAX_ENTITY_RELATIONSHIPS = 200;

export interface EntityRow {
  name: string;
  type: string;
  degree: number;
  description: string;
  community: string | null;
}

/** An entity in a neighbourhood (`id` is its name, which the edges' ends refer to). */
interface NeighbourhoodNode {
  id: string;
  name: string;
  type: string;
  degree: number;
  community: string | null;
}

/** A relationship in a neighbourhood (`id` is its key). */
interface NeighbourhoodEdge {
  id: string;
  source: string;
  target: string;
  description: string;
  weight: number;
}

const shorten = (text: string) =>
  text.length > SHORT_DESCRIPTION ? `${text.slice(0, SHORT_DESCRIPTION - 1)}…` : text;

/**
 * Read-only views of one workspace's graph for the API; every list is capped by its caller. The
 * views that read the whole graph (community membership, the most connected entities) are kept
 * until `forget()`, which the server calls when a job changed the workspace. Neighbourhoods are
 * kept as JSON per data generation when given a cache (see NeighbourhoodCache).
 */
export class GraphReads {
  private membership: Promise<Map<string, string>> | undefined;
  private ranked: Promise<EntityRow[]> | undefined;
  private byName: Promise<Map<string, string>> | undefined;

  constructor(
    private readonly store: GraphStore,
    private readonly neighbourhoods: NeighbourhoodCache | null = null,
  ) {}

  forget(): void {
    this.membership = undefined;
    this.ranked = undefined;
    this.byName = undefined;
    this.neighbourhoods?.clear();
  }

  /**
   * The key of the entity a name stands for: its own key, else the entity that has the name as
   * its display name (renamed) or as an alias (merged). Undefined for an unknown name.
   */
  async keyOf(name: string): Promise<string | undefined> {
    const key = entityKey(name);
    const [direct] = await this.store.getEntities([key]);
    if (direct) return direct.key;
    this.byName ??= this.store.listEntities().then((all) => {
      const map = new Map<string, string>();
      for (const e of all) {
        for (const alias of e.aliases ?? []) map.set(entityKey(alias), e.key);
        map.set(entityKey(e.name), e.key);
      }
      return map;
    });
    return (await this.byName).get(key);
  }

  /** Each entity's top-level (level 0) community. */
  communityOf(): Promise<Map<string, string>> {
    this.membership ??= this.store.listCommunities().then((communities) => {
      const map = new Map<string, string>();
      for (const c of communities) {
        if (c.level !== 0) continue;
        for (const key of c.entityKeys) map.set(key, c.id);
      }
      return map;
    });
    return this.membership;
  }

  async rows(entities: EntityRecord[], full = false): Promise<EntityRow[]> {
    const degrees = await this.store.degrees(entities.map((e) => e.key));
    const communities = await this.communityOf();
    return entities.map((e) => ({
      name: e.name,
      type: e.type,
      degree: degrees.get(e.key) ?? 0,
      description: full ? readableDescription(e.description) : shorten(readableDescription(e.description)),
      community: communities.get(e.key) ?? null,
    }));
  }

  /** Full-text matches on name and description, or names starting with `prefix`, or the most connected. */
  async search(options: { q?: string; prefix?: string; limit: number }): Promise<EntityRow[]> {
    if (options.q?.trim()) {
      const hits = await this.store.searchEntityText(options.q, options.limit);
      const found = await this.store.getEntities(hits.map((h) => h.id));
      const order = new Map(hits.map((h, i) => [h.id, i]));
      return this.rows(found.sort((a, b) => (order.get(a.key) ?? 0) - (order.get(b.key) ?? 0)));
    }
    if (options.prefix?.trim()) {
      const start = entityKey(options.prefix);
      const all = await this.store.listEntities();
      // Names that start so come first, then names with a later word that does ("Okaf" finds
      // "Ada Okafor"; Chinese and Japanese names have no spaces between their words, so any later
      // place does: "科技" finds "青岚科技"), each group by degree.
      const whole = all.filter((e) => e.key.startsWith(start));
      const laterWord = unspacedScript(start) ? (key: string) => key.includes(start) : laterWordStarts;
      const byWord = all.filter((e) => !e.key.startsWith(start) && laterWord(e.key, start));
      const rows = await this.rows([...whole, ...byWord]);
      const ranked = [
        ...rows.slice(0, whole.length).sort(byDegree),
        ...rows.slice(whole.length).sort(byDegree),
      ];
      return ranked.slice(0, options.limit);
    }
    return this.popular(options.limit);
  }

  async popular(limit: number): Promise<EntityRow[]> {
    this.ranked ??= this.store
      .listEntities()
      .then((all) => this.rows(all))
      .then((rows) => rows.sort(byDegree).slice(0, MAX_POPULAR));
    return (await this.ranked).slice(0, limit);
  }

  async entity(name: string) {
    const key = await this.keyOf(name);
    const [entity] = key ? await this.store.getEntities([key]) : [];
    if (!entity) return undefined;
    const [row] = await this.rows([entity], true);
    const relationships = (await this.store.relationshipsOf([entity.key]))
      .sort((a, b) => b.weight - a.weight)
      .slice(0, MAX_ENTITY_RELATIONSHIPS);
    const names = await this.namesOf(relationships.flatMap((r) => [r.sourceKey, r.targetKey]));
    const mentions = await this.store.getEntityMentions([entity.key]);
    const surfaces = [...new Set([entity.name, ...(entity.aliases ?? []), ...mentions.map((m) => m.name)])];
    return {
      entity: { ...row, aliases: surfaces.filter((s) => s !== entity.name) },
      relationships: relationships.map((r) => relationshipView(r, names)),
      sources: await this.sources(entity.sourceChunkIds, surfaces),
    };
  }

  async relationship(source: string, target: string) {
    const [a, b] = [await this.keyOf(source), await this.keyOf(target)];
    if (!a || !b) return undefined;
    const [relationship] = await this.store.getRelationships([relationshipKey(a, b)]);
    if (!relationship) return undefined;
    const names = await this.namesOf([relationship.sourceKey, relationship.targetKey]);
    const view = relationshipView(relationship, names);
    return {
      relationship: view,
      sources: await this.sources(relationship.sourceChunkIds, [view.source, view.target]),
    };
  }

  /**
   * The entities within `depth` hops, each hop's strongest relationships first, until `maxNodes`;
   * then the relationships among them, strongest first, up to `maxEdges`. Each hop and the edges
   * are one store read each. `truncated` tells when a cap cut the graph short.
   */
  async neighbourhood(name: string, depth: number, maxNodes: number, maxEdges: number) {
    const start = await this.keyOf(name);
    if (!start) return undefined;
    return this.drawNeighbourhood({ start, depth, maxNodes, maxEdges });
  }

  /**
   * neighbourhood() as the JSON the API sends, serialised once into bytes (so the server neither
   * serialises nor measures a string of hundreds of kilobytes per answer), from the cache when
   * one was given and holds it for the current data.
   */
  async neighbourhoodJson(
    name: string,
    depth: number,
    maxNodes: number,
    maxEdges: number,
  ): Promise<CachedNeighbourhood | undefined> {
    const start = await this.keyOf(name);
    if (!start) return undefined;
    const request = { start, depth, maxNodes, maxEdges };
    if (this.neighbourhoods) return this.neighbourhoods.json(request, () => this.drawNeighbourhood(request));
    return { json: Buffer.from(JSON.stringify(await this.drawNeighbourhood(request))), hit: false };
  }

  private async drawNeighbourhood({
    start,
    depth,
    maxNodes,
    maxEdges,
  }: NeighbourhoodRequest): Promise<
    NeighbourhoodGraph & { nodes: NeighbourhoodNode[]; edges: NeighbourhoodEdge[] }
  > {
    const reached = await this.reachable(start, depth, maxNodes);
    const nodes = reached.keys;
    const among = await this.store.relationshipsAmong(nodes, maxEdges + 1);
    const truncated = reached.truncated || among.length > maxEdges;
    const edges = among.slice(0, maxEdges);
    const labels = await this.labels(nodes);
    const degrees = await this.store.degrees(nodes);
    const communities = await this.communityOf();
    const names = new Map(labels.map((e) => [e.key, e.name]));
    return {
      nodes: labels.map((e) => ({
        id: e.name,
        name: e.name,
        type: e.type,
        degree: degrees.get(e.key) ?? 0,
        community: communities.get(e.key) ?? null,
      })),
      edges: edges.map((r) => ({
        id: r.key,
        source: names.get(r.sourceKey) ?? r.sourceKey,
        target: names.get(r.targetKey) ?? r.targetKey,
        description: readableDescription(r.description),
        weight: r.weight,
      })),
      truncated,
    };
  }

  /** Name and type of each entity, without reading its full record where the store can. */
  private async labels(keys: string[]): Promise<EntityLabel[]> {
    if (this.store.entityLabels) return this.store.entityLabels(keys);
    return (await this.store.getEntities(keys)).map(({ key, name, type }) => ({ key, name, type }));
  }

  /** Breadth-first from `start`, one store read per hop; `truncated` when `maxNodes` left some out. */
  private async reachable(start: string, depth: number, maxNodes: number) {
    const keys = [start];
    let frontier = [start];
    let truncated = false;
    for (let hop = 0; hop < depth && frontier.length > 0 && !truncated; hop++) {
      const room = Math.max(0, maxNodes - keys.length);
      // One more than there is room for tells whether the cap left any out.
      const next = await this.store.neighboursOf(frontier, keys, room + 1);
      truncated = next.length > room;
      frontier = next.slice(0, room);
      keys.push(...frontier);
    }
    return { keys, truncated };
  }

  async communities() {
    return (await this.store.listCommunities()).map(communityItem);
  }

  /**
   * A community by id. A retired id (its community merged into another when documents changed)
   * answers the community that took over its members, with `movedFrom` naming the id asked for.
   */
  async community(id: string): Promise<CommunityDetail | undefined> {
    const communities = await this.store.listCommunities();
    const community = communities.find((c) => c.id === id);
    if (community) return this.communityDetail(community);
    const successorId = await successorOfRetiredId(this.store, id);
    const successor = successorId === undefined ? undefined : communities.find((c) => c.id === successorId);
    return successor && { ...(await this.communityDetail(successor)), movedFrom: id };
  }

  private async communityDetail(community: CommunityRecord): Promise<CommunityDetail> {
    const names = await this.namesOf(community.entityKeys);
    const report = community.report;
    const members = community.entityKeys.map((k) => names.get(k) ?? k);
    return {
      community: communityItem(community),
      report: report
        ? { title: report.title, summary: report.summary, findings: report.findings, text: report.markdown }
        : { title: community.id, summary: "", findings: [], text: "" },
      members,
      citations: report ? reportCitations(report.markdown, new Set(members)) : {},
    };
  }

  async passage(chunkId: string) {
    const [chunk] = await this.store.getChunks([chunkId]);
    if (!chunk) return undefined;
    const doc = await this.store.getDocument(chunk.docId);
    return {
      chunkId: chunk.id,
      documentId: chunk.docId,
      ...(doc ? { title: doc.title } : {}),
      text: chunk.text,
    };
  }

  private async namesOf(keys: string[]): Promise<Map<string, string>> {
    const entities = await this.store.getEntities([...new Set(keys)]);
    return new Map(entities.map((e) => [e.key, e.name]));
  }

  /** The passages a fact came from, with where each of the names appears in them. */
  private async sources(chunkIds: string[], names: string[]) {
    const chunks = await this.store.getChunks(chunkIds.slice(0, MAX_SOURCES));
    const titles = new Map<string, string>();
    for (const docId of new Set(chunks.map((c) => c.docId))) {
      const doc = await this.store.getDocument(docId);
      if (doc) titles.set(docId, doc.title);
    }
    return chunks.map((chunk) => ({
      chunkId: chunk.id,
      documentId: chunk.docId,
      ...(titles.has(chunk.docId) ? { title: titles.get(chunk.docId) } : {}),
      text: chunk.text,
      mentions: mentionSpans(chunk, names),
    }));
  }
}

function byDegree(a: EntityRow, b: EntityRow): number {
  return b.degree - a.degree || a.name.localeCompare(b.name);
}

function relationshipView(r: RelationshipRecord, names: Map<string, string>) {
  const [sourceKey, targetKey] = splitRelationshipKey(r.key);
  return {
    source: names.get(sourceKey) ?? sourceKey,
    target: names.get(targetKey) ?? targetKey,
    description: readableDescription(r.description),
    weight: r.weight,
    ...(r.keywords.length ? { keywords: r.keywords.join(", ") } : {}),
  };
}

function communityItem(c: CommunityRecord) {
  return {
    id: c.id,
    level: c.level,
    parent: c.parentId,
    title: c.report?.title ?? c.id,
    size: c.entityKeys.length,
    ...(c.report ? { rating: c.report.rating } : {}),
  };
}

/** Character spans [start, end) of each name in the passage, case-insensitive, in text order. */
export function mentionSpans(
  chunk: Pick<ChunkRecord, "text">,
  names: string[],
): { start: number; end: number }[] {
  const text = chunk.text.toLowerCase();
  const spans: { start: number; end: number }[] = [];
  for (const name of names) {
    const needle = name.toLowerCase();
    if (!needle) continue;
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) {
      spans.push({ start: at, end: at + needle.length });
    }
  }
  return spans.sort((a, b) => a.start - b.start);
}

/** Whether the text is in a script written without spaces between words (Han, kana). */
function unspacedScript(text: string): boolean {
  return /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(text);
}

/** A word after the first in `key` (after a space, hyphen, slash or full stop) starts with `start`. */
function laterWordStarts(key: string, start: string): boolean {
  for (let at = key.indexOf(start, 1); at > 0; at = key.indexOf(start, at + 1)) {
    if (/[\s\-/.]/.test(key[at - 1] ?? "")) return true;
  }
  return false;
}
