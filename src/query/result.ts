import type { QueryMode } from "./options.js";
import type { QueryUsage } from "./usage-meter.js";

/** The JSON a query returns (CLI --json, --jsonl and the library), one field per concern. */
export interface QueryResult {
  id?: string;
  mode: QueryMode;
  /** Empty with contextOnly; an offline answer starts with its "Extractive answer" label. */
  answer: string;
  keywords: { high: string[]; low: string[] };
  context: QueryContext;
  references: Reference[];
  /** The model calls this query made (cache hits excluded), their tokens and cost at the configured prices. */
  usage: QueryUsage;
  timings: { retrievalMs: number; totalMs: number };
  /** What went wrong without failing the query, e.g. a reranker that did not answer. */
  warnings?: string[];
}

export interface QueryContext {
  entities: ContextEntity[];
  relationships: ContextRelationship[];
  /** In rank order; chunk i has reference number i + 1. */
  chunks: ContextChunk[];
  communities: ContextCommunity[];
}

export interface ContextEntity {
  name: string;
  type: string;
  /** As people read it: one fragment a line (see readableDescription). */
  description: string;
  score: number;
}

export interface ContextRelationship {
  source: string;
  target: string;
  /** As people read it: one fragment a line (see readableDescription). */
  description: string;
  keywords: string[];
  weight: number;
  score: number;
}

export interface ContextChunk {
  id: string;
  docId: string;
  text: string;
  score: number;
}

export interface ContextCommunity {
  id: string;
  level: number;
  title: string;
  summary: string;
}

/** A passage-level citation: [n] in the answer points here. */
export interface Reference {
  n: number;
  docId: string;
  /** Document title, or its path when it has no title. */
  title: string;
  chunkId: string;
  start: number;
  end: number;
  /** 1-based page of the passage in a PDF. */
  page?: number;
  /** Last page, when the passage runs onto the next page(s). */
  pageEnd?: number;
}
