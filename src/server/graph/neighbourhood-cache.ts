import { SharedWorkCache } from "../../util/shared-work-cache.js";

/** What a workspace keeps of the neighbourhoods it drew (see NeighbourhoodCache). */
export interface NeighbourhoodCacheSettings {
  /** Whole answers kept; 0 keeps none. */
  maxEntries: number;
  /** Bytes the whole answers may hold in all. */
  maxBytes: number;
  /** Relationships kept as their serialised JSON for the current data; 0 keeps none. */
  maxEdgePieces: number;
}

/** One neighbourhood request, its start resolved to an entity key. */
export interface NeighbourhoodRequest {
  start: string;
  depth: number;
  maxNodes: number;
  maxEdges: number;
}

/** A neighbourhood as the API sends it (the JSON is this object's, property for property). */
export interface NeighbourhoodGraph {
  nodes: object[];
  /** `id` is the relationship's key. */
  edges: { id: string }[];
  truncated: boolean;
}

/** A neighbourhood's JSON and whether it came from the cache. */
export interface CachedNeighbourhood {
  json: Buffer;
  hit: boolean;
}

const COMMA = Buffer.from(",");

/**
 * Neighbourhoods of one workspace as the JSON bytes the route sends, kept for the store's data
 * generation. Any write to the workspace (a job's process, a curation route, another process) moves
 * the generation, so nothing is served for data other than it was drawn from.
 *
 * Two things are kept. Whole answers, per request, in a bounded LRU: a hub's neighbourhood is
 * hundreds of kilobytes of JSON that took milliseconds of CPU to gather and serialise; identical
 * requests arriving while one is computed share its work. And each relationship's serialised JSON:
 * neighbourhoods around different entities share most of their edges (three in four across the 50
 * most connected entities of HotpotQA-100), and serialising and encoding the edges was about half
 * of drawing one.
 */
export class NeighbourhoodCache {
  private readonly answers: SharedWorkCache<Buffer> | null;
  private edgePieces = { generation: "", byKey: new Map<string, Buffer>() };
  private readonly maxEdgePieces: number;

  constructor(
    settings: NeighbourhoodCacheSettings,
    /** The store's data generation (see GraphStore.dataGeneration). */
    private readonly generation: () => string,
  ) {
    this.answers = settings.maxEntries === 0 ? null : new SharedWorkCache<Buffer>(settings);
    this.maxEdgePieces = settings.maxEdgePieces;
  }

  /**
   * The kept answer to this request at the current generation, else `draw`'s, serialised. The
   * generation is read before drawing: a write landing meanwhile files the answer under the old one.
   */
  async json(
    request: NeighbourhoodRequest,
    draw: () => Promise<NeighbourhoodGraph>,
  ): Promise<CachedNeighbourhood> {
    const generation = this.generation();
    const compute = async () => this.serialise(await draw(), generation);
    if (!this.answers) return { json: await compute(), hit: false };
    const { start, depth, maxNodes, maxEdges } = request;
    const key = [generation, depth, maxNodes, maxEdges, start].join("\u0000");
    const { value, hit } = await this.answers.get(key, compute);
    return { json: value, hit };
  }

  /** Drops everything kept (the server's other cached graph views were forgotten too). */
  clear(): void {
    this.answers?.clear();
    this.edgePieces.byKey.clear();
  }

  /** Whole answers kept. */
  get size(): number {
    return this.answers?.size ?? 0;
  }

  /** The bytes of JSON.stringify(graph), each edge's piece taken from or added to the kept ones. */
  private serialise(graph: NeighbourhoodGraph, generation: string): Buffer {
    if (this.maxEdgePieces === 0) return Buffer.from(JSON.stringify(graph));
    const pieces = this.piecesFor(generation, graph.edges.length);
    const parts: Buffer[] = [Buffer.from(`{"nodes":${JSON.stringify(graph.nodes)},"edges":[`)];
    for (const [i, edge] of graph.edges.entries()) {
      let piece = pieces.get(edge.id);
      if (piece === undefined) {
        piece = Buffer.from(JSON.stringify(edge));
        pieces.set(edge.id, piece);
      }
      if (i > 0) parts.push(COMMA);
      parts.push(piece);
    }
    parts.push(Buffer.from(`],"truncated":${JSON.stringify(graph.truncated)}}`));
    return Buffer.concat(parts);
  }

  /** The pieces of this generation, emptied when the data moved on or `incoming` more would pass the cap. */
  private piecesFor(generation: string, incoming: number): Map<string, Buffer> {
    const kept = this.edgePieces;
    if (kept.generation !== generation || kept.byKey.size + incoming > this.maxEdgePieces)
      this.edgePieces = { generation, byKey: new Map() };
    return this.edgePieces.byKey;
  }
}
