import { citedCommunityIds, citedPassageNumbers } from "../community/citations.js";
import { counted } from "../util/counted.js";
import { NOTHING_FOUND } from "./answer/answer.js";
import type { ContextCommunity, QueryResult, Reference } from "./result.js";

/** One source line: where [n] points, down to the character span. */
export function referenceLine(ref: Reference): string {
  return `[${ref.n}] ${ref.title} (document ${ref.docId}${pagesPart(ref)}, chunk ${ref.chunkId}, chars ${ref.start}-${ref.end})`;
}

/** `, page 3` or `, page 3-4` for a passage of a PDF, else nothing. */
export function pagesPart(ref: Pick<Reference, "page" | "pageEnd">): string {
  return ref.page === undefined ? "" : `, page ${ref.page}${ref.pageEnd ? `-${ref.pageEnd}` : ""}`;
}

/** One community source line: where [C:<id>] points. */
export function communitySourceLine(community: ContextCommunity): string {
  return `[C:${community.id}] ${community.title} (community report, level ${community.level})`;
}

/**
 * The sources a reader of the answer needs: the passages and community reports it cites. An answer
 * citing no passage lists them all (`cited` false), and a result without an answer (context only)
 * lists the whole context, its reports included.
 */
export function citedSources(result: QueryResult): {
  references: Reference[];
  communities: ContextCommunity[];
  cited: boolean;
} {
  const { answer, references, context } = result;
  if (!answer) return { references, communities: context.communities, cited: false };
  // Found nothing to answer from: the passages retrieved are not its sources.
  if (answer.trim() === NOTHING_FOUND) return { references: [], communities: [], cited: true };
  const numbers = citedPassageNumbers(answer);
  const citedReferences = references.filter((ref) => numbers.has(ref.n));
  const byId = new Map(context.communities.map((c) => [c.id, c]));
  const communities = citedCommunityIds(answer, new Set(byId.keys())).map(
    (id) => byId.get(id) as ContextCommunity,
  );
  const cited = citedReferences.length > 0;
  return { references: cited ? citedReferences : references, communities, cited };
}

/**
 * The terminal view of a result: the answer (unless already streamed), then its sources: the
 * numbered passages and the community reports ([C:<id>]) the answer cites (see citedSources);
 * --json keeps every reference.
 */
export function resultText(result: QueryResult, options: { answerShown?: boolean } = {}): string {
  const parts: string[] = [];
  if (!options.answerShown && result.answer) parts.push(result.answer.trim());
  if (!result.answer) parts.push(contextSummary(result));
  const { references, communities } = citedSources(result);
  const sources = [...references.map(referenceLine), ...communities.map(communitySourceLine)];
  if (sources.length) parts.push(`Sources:\n${sources.join("\n")}`);
  return `${parts.join("\n\n")}\n`;
}

function contextSummary(result: QueryResult): string {
  const c = result.context;
  const head =
    `Context (${result.mode}): ${counted(c.entities.length, "entity", "entities")}, ` +
    `${counted(c.relationships.length, "relationship")}, ${counted(c.communities.length, "community report")}, ` +
    `${counted(c.chunks.length, "passage")}`;
  const passages = c.chunks.map((chunk, i) => `[${i + 1}] ${oneLine(chunk.text, 160)}`);
  return [head, ...passages].join("\n");
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
