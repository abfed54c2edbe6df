import { descriptionFragments } from "../../merge/description-text.js";
import { BoundedMemo } from "../../util/bounded-memo.js";
import type {
  ContextChunk,
  ContextCommunity,
  ContextEntity,
  ContextRelationship,
  Reference,
} from "../result.js";

/** One line or block of the context as the answer model reads it. */

export function entityLine(e: ContextEntity): string {
  return `- ${e.name} (${e.type}): ${readable(e.description)}`;
}

export function relationshipLine(r: ContextRelationship): string {
  const keywords = r.keywords.length ? ` [${r.keywords.join(", ")}]` : "";
  return `- ${r.source} -- ${r.target}${keywords}: ${readable(r.description)}`;
}

export function communityLine(c: ContextCommunity): string {
  return `- ${c.title}: ${readable(c.summary)}`;
}

export function passageHeader(n: number, title: string): string {
  return `[${n}] ${title}`;
}

export function passageBlock(n: number, title: string, chunk: ContextChunk): string {
  return `${passageHeader(n, title)}\n${chunk.text.trim()}`;
}

/** Sections without items are left out so the model is not shown empty headings. */
export function renderContext(parts: {
  entities: ContextEntity[];
  relationships: ContextRelationship[];
  communities: ContextCommunity[];
  chunks: ContextChunk[];
  references: Reference[];
  communityAnalysis: string | null;
}): string {
  const sections: string[] = [];
  if (parts.entities.length) sections.push(`## Entities\n${parts.entities.map(entityLine).join("\n")}`);
  if (parts.relationships.length) {
    sections.push(`## Relationships\n${parts.relationships.map(relationshipLine).join("\n")}`);
  }
  if (parts.communities.length) {
    sections.push(`## Community reports\n${parts.communities.map(communityLine).join("\n")}`);
  }
  if (parts.communityAnalysis)
    sections.push(`## Analysis of the community reports\n${parts.communityAnalysis}`);
  if (parts.chunks.length) {
    const blocks = parts.chunks.map((chunk, i) => {
      const ref = parts.references[i];
      return passageBlock(ref?.n ?? i + 1, ref?.title ?? chunk.docId, chunk);
    });
    sections.push(`## Passages\n${blocks.join("\n\n")}`);
  }
  return sections.join("\n\n") || "(nothing relevant was found in the indexed documents)";
}

/** Enough for the entities and relationships of many queries; cleared whole when full. */
const MAX_READABLE = 16_384;
const readableTexts = new BoundedMemo<string, string>(MAX_READABLE);

/**
 * A description on one line of the context: its fragments (see descriptionFragments) apart with
 * " | ". Remembered: every candidate's line is rendered to be measured and again to be shown, and
 * the same entities and relationships come back query after query.
 */
function readable(description: string): string {
  return readableTexts.get(description, () => descriptionFragments(description).join(" | "));
}
