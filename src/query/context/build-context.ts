import type { ChunkRecord, ScoredId } from "../../types.js";
import type { QueryGraph } from "../graph/query-graph.js";
import type { Retrieval } from "../modes/retrieval.js";
import type { ContextEntity, ContextRelationship, QueryContext, Reference } from "../result.js";
import { fitCommunities } from "./context-communities.js";
import { entityLine, passageHeader, relationshipLine, renderContext } from "./context-format.js";
import { fitting, lineTokens } from "./line-tokens.js";
import { documentTitles, numberReferences, withPages } from "./references.js";

export interface ContextBudget {
  entityTokens: number;
  relationshipTokens: number;
  /** Everything sent to the model, prompt included. */
  totalTokens: number;
  chunkTopK: number;
  /** Tokens already spoken for by the prompt around the context (template, question, history). */
  reservedTokens: number;
}

export interface BuiltContext {
  context: QueryContext;
  references: Reference[];
  /** The context as the answer prompt shows it. */
  text: string;
}

/**
 * Fills the context in rank order under the token budgets: entities, then relationships, then
 * community reports (and their analysis), and chunks take whatever is left (LightRAG's split). Each list is cut at the
 * first item that does not fit, so what is kept is always a prefix of the ranking.
 */
export async function buildContext(
  graph: QueryGraph,
  retrieval: Retrieval,
  budget: ContextBudget,
): Promise<BuiltContext> {
  let left = Math.max(0, budget.totalTokens - budget.reservedTokens);
  const entities = fitting(
    await entityItems(graph, retrieval.entities),
    entityLine,
    Math.min(budget.entityTokens, left),
  );
  left -= entities.tokens;
  const relationships = fitting(
    await relationshipItems(graph, retrieval.relationships),
    relationshipLine,
    Math.min(budget.relationshipTokens, left),
  );
  left -= relationships.tokens;
  const reports = fitCommunities(retrieval, left);
  left -= reports.tokens;

  const candidates = await chunkRecords(graph, retrieval.chunks.slice(0, budget.chunkTopK));
  const titles = await documentTitles(
    graph.store,
    candidates.map((c) => c.record.docId),
  );
  const chosen = chunksFitting(candidates, titles, left);
  const references = await withPages(
    graph.store,
    numberReferences(
      chosen.map((c) => c.record),
      titles,
    ),
  );
  const context: QueryContext = {
    entities: entities.items,
    relationships: relationships.items,
    chunks: chosen.map(({ record, score }) => ({
      id: record.id,
      docId: record.docId,
      text: record.text,
      score,
    })),
    communities: reports.communities,
  };
  const text = renderContext({ ...context, references, communityAnalysis: reports.analysis });
  return { context, references, text };
}

interface RankedChunk {
  record: ChunkRecord;
  score: number;
}

function chunksFitting(chunks: RankedChunk[], titles: Map<string, string>, budget: number): RankedChunk[] {
  const kept: RankedChunk[] = [];
  let tokens = 0;
  for (const chunk of chunks) {
    const title = titles.get(chunk.record.docId) ?? chunk.record.docId;
    const cost = lineTokens(passageHeader(kept.length + 1, title)) + chunk.record.tokens + 2;
    if (tokens + cost > budget) break;
    kept.push(chunk);
    tokens += cost;
  }
  return kept;
}

async function chunkRecords(graph: QueryGraph, ranked: ScoredId[]): Promise<RankedChunk[]> {
  const byId = new Map((await graph.store.getChunks(ranked.map((r) => r.id))).map((c) => [c.id, c]));
  const out: RankedChunk[] = [];
  for (const { id, score } of ranked) {
    const record = byId.get(id);
    if (record && (!graph.scope || graph.scope.chunkIds.has(id))) out.push({ record, score });
  }
  return out;
}

async function entityItems(graph: QueryGraph, ranked: ScoredId[]): Promise<ContextEntity[]> {
  const byKey = new Map((await graph.entities(ranked.map((r) => r.id))).map((e) => [e.key, e]));
  return ranked.flatMap(({ id, score }) => {
    const e = byKey.get(id);
    return e ? [{ name: e.name, type: e.type, description: e.description, score }] : [];
  });
}

async function relationshipItems(graph: QueryGraph, ranked: ScoredId[]): Promise<ContextRelationship[]> {
  const rels = new Map((await graph.relationships(ranked.map((r) => r.id))).map((r) => [r.key, r]));
  const ends = [...rels.values()].flatMap((r) => [r.sourceKey, r.targetKey]);
  const names = new Map((await graph.entities(ends)).map((e) => [e.key, e.name]));
  return ranked.flatMap(({ id, score }) => {
    const r = rels.get(id);
    if (!r) return [];
    return [
      {
        source: names.get(r.sourceKey) ?? r.sourceKey,
        target: names.get(r.targetKey) ?? r.targetKey,
        description: r.description,
        keywords: r.keywords,
        weight: r.weight,
        score,
      },
    ];
  });
}
