import type { HistoryTurn } from "./cypher-prompts.js";
import { routeQuestion } from "./routing.js";
import {
  answerWithCypher,
  type TextToCypherDeps,
  type TextToCypherOptions,
  type TextToCypherResult,
} from "./text2cypher.js";

/** Answers a question with the GraphRAG query modes (the lead wires kgrag's query engine here). */
export type RagAnswer = (question: string) => Promise<string>;

export interface ChatTurn {
  question: string;
  /** "rag" when the question went to the GraphRAG query modes instead of Cypher. */
  route: "cypher" | "rag";
  /** Present when Cypher was tried (also when the model then declined and the turn went to RAG). */
  cypherResult?: TextToCypherResult;
  answer: string;
}

export interface ChatSessionOptions extends TextToCypherOptions {
  /** Earlier turns given to the model for follow-ups (default 3). */
  historyTurns?: number;
}

/**
 * A Text2Cypher conversation: follow-ups see earlier questions, queries and rows; questions Cypher
 * cannot serve go to the GraphRAG modes, and the answer says so.
 */
export class CypherChatSession {
  readonly turns: ChatTurn[] = [];

  constructor(
    private readonly deps: TextToCypherDeps & { ragAnswer?: RagAnswer },
    private readonly options: ChatSessionOptions = {},
  ) {}

  async ask(question: string): Promise<ChatTurn> {
    const turn =
      routeQuestion(question) === "rag"
        ? await this.viaRag(
            question,
            "it asks about themes or summaries, which a Cypher query cannot compute",
          )
        : await this.viaCypher(question);
    this.turns.push(turn);
    return turn;
  }

  private async viaCypher(question: string): Promise<ChatTurn> {
    const result = await answerWithCypher(question, this.deps, this.options, this.history());
    if (result.noCypherReason !== undefined) {
      const turn = await this.viaRag(
        question,
        `the model found no Cypher query for it (${result.noCypherReason})`,
      );
      return { ...turn, cypherResult: result };
    }
    return { question, route: "cypher", cypherResult: result, answer: result.answer };
  }

  private async viaRag(question: string, why: string): Promise<ChatTurn> {
    if (!this.deps.ragAnswer) {
      return {
        question,
        route: "rag",
        answer: `Not answered: ${why}, and no GraphRAG query mode is available here.`,
      };
    }
    const answer = await this.deps.ragAnswer(question);
    return {
      question,
      route: "rag",
      answer: `(Answered by the GraphRAG query modes, not Cypher: ${why}.)\n\n${answer}`,
    };
  }

  /** The recent turns as the generation prompt sees them. */
  private history(): HistoryTurn[] {
    const keep = this.options.historyTurns ?? 3;
    return this.turns.slice(Math.max(0, this.turns.length - keep)).map((turn) => ({
      question: turn.question,
      cypher: turn.cypherResult?.cypher ?? null,
      rows: turn.cypherResult?.rows ?? [],
      answer: turn.answer,
    }));
  }
}
