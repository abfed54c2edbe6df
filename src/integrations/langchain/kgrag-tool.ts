import { tool } from "@langchain/core/tools";
import { z } from "zod";
import type { Kgrag } from "../../kgrag.js";
import { QUERY_MODES, type QueryMode } from "../../query/mode-names.js";
import { type AgentAnswer, queryForAgents } from "../query-for-agents.js";

export interface KgragToolOptions {
  kgrag: Pick<Kgrag, "query">;
  /** Mode used when the agent does not choose one (default mix). */
  mode?: QueryMode;
  name?: string;
  description?: string;
  /** Characters of each source's text quoted back to the agent. */
  quoteChars?: number;
}

const DESCRIPTION =
  "Answer a question from the indexed documents through kgrag's knowledge graph. Returns the answer " +
  "with numbered sources [n] (document, passage, quote). Modes: naive (passages), local (entities), " +
  "global (community reports, for themes), hybrid, mix (default).";

/** A LangChain tool an agent calls to ask kgrag in a chosen mode; it answers with its sources. */
export function createKgragTool(options: KgragToolOptions) {
  const quoteChars = options.quoteChars ?? 400;
  return tool(
    async ({ question, mode }) =>
      JSON.stringify(toolAnswer(await queryForAgents(options.kgrag, question, { mode }), quoteChars)),
    {
      name: options.name ?? "kgrag_query",
      description: options.description ?? DESCRIPTION,
      schema: z.object({
        question: z.string().min(1).describe("the question, in full"),
        mode: z
          .enum(QUERY_MODES)
          .default(options.mode ?? "mix")
          .describe("retrieval mode"),
      }),
    },
  );
}

function toolAnswer(answer: AgentAnswer, quoteChars: number) {
  return {
    answer: answer.answer,
    mode: answer.mode,
    sources: answer.sources.map(({ text, ...reference }) => ({
      ...reference,
      quote: text.length > quoteChars ? `${text.slice(0, quoteChars)}…` : text,
    })),
  };
}
