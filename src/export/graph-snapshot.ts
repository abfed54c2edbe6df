import { UndirectedGraph } from "graphology";
import { readableDescription } from "../merge/description-text.js";
import type { GraphStore } from "../storage/graph-store.js";
import type {
  ChunkRecord,
  ChunkState,
  CommunityRecord,
  DocumentRecord,
  EntityMention,
  EntityRecord,
  RelationshipMention,
  RelationshipRecord,
} from "../types.js";

/** Everything an export writes, read once from either store through the GraphStore interface. */
export interface GraphSnapshot {
  documents: DocumentRecord[];
  chunks: ChunkRecord[];
  chunkStates: ChunkState[];
  entityMentions: EntityMention[];
  relationshipMentions: RelationshipMention[];
  entities: EntityRecord[];
  relationships: RelationshipRecord[];
  communities: CommunityRecord[];
}

export async function loadGraphSnapshot(store: GraphStore): Promise<GraphSnapshot> {
  const chunks = await store.listChunks();
  const mentions = await store.getChunkMentions(chunks.map((c) => c.id));
  return {
    documents: await store.listDocuments(),
    chunks,
    chunkStates: await store.getChunkStates(),
    entityMentions: mentions.entities,
    relationshipMentions: mentions.relationships,
    entities: await store.listEntities(),
    relationships: await store.listRelationships(),
    communities: await store.listCommunities(),
  };
}

/** Separator of list values flattened into one GraphML/GEXF attribute (chunk ids never contain it). */
export const LIST_SEPARATOR = ";";

export interface EntityNodeAttributes {
  label: string;
  entityType: string;
  description: string;
  sourceChunkIds: string;
  communities: string;
  /** Other names the entity was merged from, joined with LIST_SEPARATOR. */
  aliases: string;
  [key: string]: string;
}

export interface RelationshipEdgeAttributes {
  label: string;
  description: string;
  keywords: string;
  weight: number;
  sourceChunkIds: string;
  [key: string]: string | number;
}

/**
 * The entity graph as a graphology graph for the XML formats: one node per entity, one undirected
 * edge per relationship, list values flattened (keywords with ", ", ids with ";"), descriptions
 * readable (one fragment a line), and text made XML-safe. Relationship keys (which hold a control
 * character) are not used as edge ids.
 */
export function toGraphology(
  snapshot: GraphSnapshot,
): UndirectedGraph<EntityNodeAttributes, RelationshipEdgeAttributes> {
  const graph = new UndirectedGraph<EntityNodeAttributes, RelationshipEdgeAttributes>();
  const communitiesOf = membership(snapshot.communities);
  for (const entity of snapshot.entities) {
    graph.addNode(xmlSafe(entity.key), {
      label: xmlSafe(entity.name),
      entityType: xmlSafe(entity.type),
      description: xmlSafe(readableDescription(entity.description)),
      sourceChunkIds: xmlSafe(entity.sourceChunkIds.join(LIST_SEPARATOR)),
      communities: xmlSafe((communitiesOf.get(entity.key) ?? []).join(LIST_SEPARATOR)),
      aliases: xmlSafe((entity.aliases ?? []).join(LIST_SEPARATOR)),
    });
  }
  snapshot.relationships.forEach((rel, index) => {
    const [source, target] = [xmlSafe(rel.sourceKey), xmlSafe(rel.targetKey)];
    if (!graph.hasNode(source) || !graph.hasNode(target)) return;
    graph.addUndirectedEdgeWithKey(`r${index}`, source, target, {
      label: xmlSafe(rel.keywords.join(", ")),
      description: xmlSafe(readableDescription(rel.description)),
      keywords: xmlSafe(rel.keywords.join(", ")),
      weight: rel.weight,
      sourceChunkIds: xmlSafe(rel.sourceChunkIds.join(LIST_SEPARATOR)),
    });
  });
  return graph;
}

function membership(communities: CommunityRecord[]): Map<string, string[]> {
  const of = new Map<string, string[]>();
  for (const community of communities) {
    for (const key of community.entityKeys) of.set(key, [...(of.get(key) ?? []), community.id]);
  }
  return of;
}

/**
 * Text XML 1.0 can hold: C0 controls other than tab, LF and CR, U+FFFE/U+FFFF and unpaired
 * surrogates cannot appear in a document even escaped, so they become a space or U+FFFD.
 */
export function xmlSafe(text: string): string {
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (code < 0x20 && char !== "\t" && char !== "\n" && char !== "\r") out += " ";
    else if (code === 0xfffe || code === 0xffff || (code >= 0xd800 && code <= 0xdfff)) out += "\ufffd";
    else out += char;
  }
  return out;
}
