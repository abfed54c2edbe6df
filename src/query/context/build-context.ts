import { readableDescription } from "../../merge/description-text.js";
import type { ChunkRecord, ScoredId } from "../../types.js";
import { BoundedMemo } from "../../util/bounded-memo.js";
import type { QueryGraph } from "../graph/query-graph.js";
import type { Retrieval } from "../modes/retrieval.js";
import type { ContextEntity, ContextRelationship, QueryContext, Reference } from "../result.js";
import { type FittedCommunities, fitCommunities } from "./context-communities.js";
import { entityLine, passageHeader, relationshipLine, renderContext } from "./context-format.js";
import {
  fittingBy,
  type ItemMeasures,
  lineTokens,
  measuresByKey,
  type TokenMeasure,
  tokenBound,
} from "./line-tokens.js";
import { documentTitles, numberReferences, withPages } from "./references.js";

export interface ContextBudget {
  entityTokens: number;
  relationshipTokens: number;
  /** Everything sent to the model, prompt included. */
  totalTokens: number;
  chunkTopK: number;
  /** The texts the prompt sends around the context (template, question, history): their tokens are spoken for. */
  reservedTexts: string[];
}

export interface BuiltContext {
  context: QueryContext;
  references: Reference[];
  /** The context as the answer prompt shows it (rendered when first read). */
  readonly text: string;
}

/** Everything that may enter the context, in rank order, before any budget is applied. */
interface Candidates {
  entities: ContextEntity[];
  relationships: ContextRelationship[];
  chunks: RankedChunk[];
  titles: Map<string, string>;
}

/** What fits of the candidates, and whether that is all of them. */
interface Fitted {
  entities: ContextEntity[];
  relationships: ContextRelationship[];
  reports: FittedCommunities;
  chunks: RankedChunk[];
  complete: boolean;
}

/**
 * Fills the context in rank order under the token budgets: entities, then relationships, then
 * community reports (and their analysis), and chunks take whatever is left (LightRAG's split). Each list is cut at the
 * first item that does not fit, so what is kept is always a prefix of the ranking.
 *
 * Counting tokens needs the tokenizer, whose tables take about half a second to load, and exact
 * counts of every line were a tenth of a graph query's time. Where a list fits even by an upper
 * bound of its tokens, exact counts cannot change what is kept, so they are taken only for the
 * lists cut by their own budget (fitCountingWhereNeeded); otherwise all budgets use exact counts.
 */
export async function buildContext(
  graph: QueryGraph,
  retrieval: Retrieval,
  budget: ContextBudget,
): Promise<BuiltContext> {
  const candidates = await contextCandidates(graph, retrieval, budget.chunkTopK);
  const fitted =
    fitCountingWhereNeeded(candidates, retrieval, budget) ?? fitCandidates(candidates, retrieval, budget);
  const references = await withPages(
    graph.store,
    numberReferences(
      fitted.chunks.map((c) => c.record),
      candidates.titles,
    ),
  );
  const context: QueryContext = {
    entities: fitted.entities,
    relationships: fitted.relationships,
    chunks: fitted.chunks.map(({ record, score }) => ({
      id: record.id,
      docId: record.docId,
      text: record.text,
      score,
    })),
    communities: fitted.reports.communities,
  };
  const parts = { ...context, references, communityAnalysis: fitted.reports.analysis };
  let text: string | undefined;
  return {
    context: withReadableDescriptions(context),
    references,
    // Rendered on first read: only the answer's prompt reads it, so a context-only query skips it.
    get text() {
      text ??= renderContext(parts);
      return text;
    },
  };
}

/**
 * Readable forms of descriptions met before, keyed by the stored text: the same entities and
 * relationships come back query after query, their descriptions the very strings the read caches
 * hold (so a lookup does not even hash them again), and splitting offline descriptions into their
 * fragments on every query was about 4 % of a query's CPU. Keyed by text, it cannot go stale.
 */
const readableDescriptions = new BoundedMemo<string, string>(16_384);

function readable(description: string): string {
  return readableDescriptions.get(description, () => readableDescription(description));
}

/** The result shows descriptions as people read them (the prompt has its own one-line form). */
function withReadableDescriptions(context: QueryContext): QueryContext {
  return {
    ...context,
    entities: context.entities.map((e) => ({ ...e, description: readable(e.description) })),
    relationships: context.relationships.map((r) => ({ ...r, description: readable(r.description) })),
  };
}

async function contextCandidates(
  graph: QueryGraph,
  retrieval: Retrieval,
  chunkTopK: number,
): Promise<Candidates> {
  const chunks = await chunkRecords(graph, retrieval.chunks.slice(0, chunkTopK));
  return {
    entities: await entityItems(graph, retrieval.entities),
    relationships: await relationshipItems(graph, retrieval.relationships),
    chunks,
    titles: await documentTitles(
      graph.store,
      chunks.map((c) => c.record.docId),
    ),
  };
}

/** Every budget counted with exact token counts. */
function fitCandidates(candidates: Candidates, retrieval: Retrieval, budget: ContextBudget): Fitted {
  const measure = lineTokens;
  const reserved = budget.reservedTexts.reduce((sum, text) => sum + measure(text), 0);
  let left = Math.max(0, budget.totalTokens - reserved);
  const entities = fittingBy(candidates.entities, entityMeasures.exact, Math.min(budget.entityTokens, left));
  left -= entities.tokens;
  const relationships = fittingBy(
    candidates.relationships,
    relationshipMeasures.exact,
    Math.min(budget.relationshipTokens, left),
  );
  left -= relationships.tokens;
  const reports = fitCommunities(retrieval, left, measure);
  left -= reports.tokens;
  const chunks = chunksFitting(candidates.chunks, candidates.titles, left, measure);
  const complete =
    entities.items.length === candidates.entities.length &&
    relationships.items.length === candidates.relationships.length &&
    reports.communities.length === retrieval.communities.length &&
    (reports.analysis !== null) === Boolean(retrieval.communityAnalysis) &&
    chunks.length === candidates.chunks.length;
  return { entities: entities.items, relationships: relationships.items, reports, chunks, complete };
}

/**
 * The same prefixes as fitCandidates with exact counts, counting tokens exactly only for a list
 * whose upper bounds (bytes) overflow a budget that does not depend on the lists before it; a
 * list that fits by its bounds is kept whole. Tracks a lower bound of the tokens left (bounds
 * spent where nothing was counted): a list whose budget is the exact remainder, cut by its
 * bounds under that lower bound, could fit differently, and then the answer is undefined (count
 * everything exactly).
 */
function fitCountingWhereNeeded(
  candidates: Candidates,
  retrieval: Retrieval,
  budget: ContextBudget,
): Fitted | undefined {
  const reserved = budget.reservedTexts.reduce((sum, text) => sum + tokenBound(text), 0);
  let left = Math.max(0, budget.totalTokens - reserved);
  const entities = fitWithin(candidates.entities, entityMeasures, budget.entityTokens, left);
  if (!entities) return undefined;
  left -= entities.tokens;
  const relationships = fitWithin(
    candidates.relationships,
    relationshipMeasures,
    budget.relationshipTokens,
    left,
  );
  if (!relationships) return undefined;
  left -= relationships.tokens;
  const reports = fitCommunities(retrieval, left, tokenBound);
  const allReports =
    reports.communities.length === retrieval.communities.length &&
    (reports.analysis !== null) === Boolean(retrieval.communityAnalysis);
  if (!allReports) return undefined;
  left -= reports.tokens;
  const chunks = chunksFitting(candidates.chunks, candidates.titles, left, tokenBound);
  if (chunks.length !== candidates.chunks.length) return undefined;
  return { entities: entities.items, relationships: relationships.items, reports, chunks, complete: true };
}

/**
 * One list under min(`own` budget, exact tokens left), given `leftAtLeast` <= the tokens left:
 * whole when its bounds fit, exactly counted when its own budget is the smaller one for sure,
 * else undefined (only the exact remainder can decide).
 */
function fitWithin<T>(
  items: T[],
  measures: ItemMeasures<T>,
  own: number,
  leftAtLeast: number,
): { items: T[]; tokens: number } | undefined {
  const bounded = fittingBy(items, measures.bound, Math.min(own, leftAtLeast));
  if (bounded.items.length === items.length) return bounded;
  return own <= leftAtLeast ? fittingBy(items, measures.exact, own) : undefined;
}

/**
 * Entity and relationship lines measured by their description (see measuresByKey): the same
 * counts as their rendered lines', without rendering and hashing each line on every query.
 */
const entityMeasures = measuresByKey(
  entityLine,
  (e: ContextEntity) => e.description,
  (e) => [e.name, e.type],
);
const relationshipMeasures = measuresByKey(
  relationshipLine,
  (r: ContextRelationship) => r.description,
  (r) => [r.source, r.target, ...r.keywords],
);

interface RankedChunk {
  record: ChunkRecord;
  score: number;
}

function chunksFitting(
  chunks: RankedChunk[],
  titles: Map<string, string>,
  budget: number,
  measure: TokenMeasure,
): RankedChunk[] {
  const kept: RankedChunk[] = [];
  let tokens = 0;
  for (const chunk of chunks) {
    const title = titles.get(chunk.record.docId) ?? chunk.record.docId;
    const cost = measure(passageHeader(kept.length + 1, title)) + chunk.record.tokens + 2;
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
