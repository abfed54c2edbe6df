import type { ContextCommunity, QueryResult, Reference } from "./result.js";

/** One source line: where [n] points, down to the character span. */
export function referenceLine(ref: Reference): string {
  const pages = ref.page === undefined ? "" : `, page ${ref.page}${ref.pageEnd ? `-${ref.pageEnd}` : ""}`;
  return `[${ref.n}] ${ref.title} (document ${ref.docId}${pages}, chunk ${ref.chunkId}, chars ${ref.start}-${ref.end})`;
}

/** One community source line: where [C:<id>] points. */
export function communitySourceLine(community: ContextCommunity): string {
  return `[C:${community.id}] ${community.title} (community report, level ${community.level})`;
}

/**
 * The terminal view of a result: the answer (unless already streamed), then its sources: numbered
 * passages, then the community reports an answer cites as [C:<id>].
 */
export function resultText(result: QueryResult, options: { answerShown?: boolean } = {}): string {
  const parts: string[] = [];
  if (!options.answerShown && result.answer) parts.push(result.answer.trim());
  if (!result.answer) parts.push(contextSummary(result));
  const sources = [
    ...result.references.map(referenceLine),
    ...result.context.communities.map(communitySourceLine),
  ];
  if (sources.length) parts.push(`Sources:\n${sources.join("\n")}`);
  return `${parts.join("\n\n")}\n`;
}

function contextSummary(result: QueryResult): string {
  const c = result.context;
  const head =
    `Context (${result.mode}): ${c.entities.length} entities, ${c.relationships.length} relationships, ` +
    `${c.communities.length} community reports, ${c.chunks.length} passages`;
  const passages = c.chunks.map((chunk, i) => `[${i + 1}] ${oneLine(chunk.text, 160)}`);
  return [head, ...passages].join("\n");
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
