import type { Kgrag } from "../kgrag.js";
import type { QueryMode } from "../query/mode-names.js";
import type { QueryResult, Reference } from "../query/result.js";

/** A cited passage as an agent gets it: the reference and the text it can quote. */
export interface AgentSource extends Reference {
  text: string;
  score: number;
  /** 1-based page of a PDF passage. */
  page?: number;
}

export interface AgentAnswer {
  question: string;
  mode: QueryMode;
  /** Empty when only the passages were asked for. */
  answer: string;
  /** In citation order: [n] in the answer is sources[n - 1]. */
  sources: AgentSource[];
}

export interface AgentQueryOptions {
  mode?: QueryMode;
  docIds?: string[];
  metadata?: Record<string, string>;
  contextOnly?: boolean;
}

/** One query in a chosen mode, shaped for a tool answer (MCP, LangChain): the answer and its sources. */
export async function queryForAgents(
  kgrag: Pick<Kgrag, "query">,
  question: string,
  options: AgentQueryOptions = {},
): Promise<AgentAnswer> {
  const result = await kgrag.query(question, withoutUndefined(options));
  return { question, mode: result.mode, answer: result.answer, sources: sourcesOf(result) };
}

/** References joined with the passages they point at (chunk i of the context is reference i + 1). */
export function sourcesOf(result: QueryResult): AgentSource[] {
  return result.references.map((reference) => {
    const chunk = result.context.chunks.find((c) => c.id === reference.chunkId);
    return { ...reference, text: chunk?.text ?? "", score: chunk?.score ?? 0 };
  });
}

function withoutUndefined(options: AgentQueryOptions): AgentQueryOptions {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
}
