import { readableDescription } from "../merge/description-text.js";
import type { GraphSnapshot } from "./graph-snapshot.js";

/**
 * The graph as one JSON document: entities as nodes and relationships as edges with every
 * property, the community hierarchy with its reports, and the documents and chunk positions that
 * the sourceChunkIds point to (chunk text is left out; it is in the workspace). It is for reading,
 * not for importing back (nothing reads it; `kgrag migrate` copies a workspace), so a description
 * is readable, one fragment a line; the fragments themselves are in `fragments`.
 */
export function graphToJson(snapshot: GraphSnapshot): string {
  const communitiesOf = new Map<string, string[]>();
  for (const c of snapshot.communities) {
    for (const key of c.entityKeys) communitiesOf.set(key, [...(communitiesOf.get(key) ?? []), c.id]);
  }
  const document = {
    format: "kgrag-graph",
    version: 1,
    nodes: snapshot.entities.map((e) => ({
      id: e.key,
      ...e,
      description: readableDescription(e.description),
      aliases: e.aliases ?? [],
      communities: communitiesOf.get(e.key) ?? [],
    })),
    edges: snapshot.relationships.map((r) => ({
      id: r.key,
      source: r.sourceKey,
      target: r.targetKey,
      ...r,
      description: readableDescription(r.description),
    })),
    communities: snapshot.communities,
    documents: snapshot.documents,
    chunks: snapshot.chunks.map(({ text: _text, ...position }) => position),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
