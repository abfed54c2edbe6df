import type { z } from "zod";
import type { ExtractionSchema } from "../config.js";
import type { ChatMessage, ChatModel, ChatResponse, Stage } from "../llm/chat-model.js";
import type { ChunkRecord, Extraction } from "../types.js";
import type { ExtractionOutcome, Extractor } from "./extractor.js";
import { extractMessages, gleanMessages, retryMessages } from "./llm-messages.js";
import { mergeRounds } from "./merge-rounds.js";
import { parseExtraction } from "./parse.js";
import { EXTRACTION_JSON_SCHEMA } from "./schema.js";

export type LlmExtractorOptions = z.infer<typeof ExtractionSchema>;

/** A usable first round, with the conversation that produced it so gleaning can continue it. */
interface Round {
  extraction: Extraction;
  messages: ChatMessage[];
  answer: string;
}

type FirstRound = ({ ok: true } & Round) | { ok: false; error: string; rawOutput: string | null };

/** Only parseable answers are worth caching; a rejected one is asked again on the next run. */
const isParseable = (text: string) => parseExtraction(text).ok;

/** What the retry prompt is told when an answer stopped at the model's output limit. */
const CUT_OFF =
  "it was cut off at the model's output limit before the JSON was complete, so entities and " +
  "relationships after the cut were lost";

/**
 * Extraction by a chat model: one structured-output call per chunk ("extract"), retried with a
 * corrective prompt while the answer cannot be parsed or was cut off at the output limit (JSON
 * repair would close it, silently dropping the rest), then `gleaning` rounds ("glean") asking for
 * what was missed. When no attempt gives a complete answer, the readable part of the latest cut-off
 * one is kept. Model and transport problems come back as failures, never as exceptions.
 */
export class LlmExtractor implements Extractor {
  readonly kind = "llm" as const;

  constructor(
    private readonly chat: ChatModel,
    private readonly options: LlmExtractorOptions,
  ) {}

  async extract(chunk: ChunkRecord, context: { title: string }): Promise<ExtractionOutcome> {
    try {
      const first = await this.firstRound(chunk.text, context.title);
      if (!first.ok) return first;
      const rounds = await this.glean(first);
      return { ok: true, extraction: mergeRounds(rounds) };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, error: `The chat model request failed: ${message}`, rawOutput: null };
    }
  }

  private async firstRound(text: string, title: string): Promise<FirstRound> {
    let messages = extractMessages(this.options, title, text);
    let error = "";
    let rawOutput = "";
    // The readable part of the latest cut-off answer: kept if no later attempt does better.
    let partial: Round | null = null;
    for (let attempt = 1; attempt <= this.options.parseAttempts; attempt++) {
      const reply = await this.ask("extract", messages);
      const answer = reply.text;
      const parsed = parseExtraction(answer);
      if (parsed.ok && !reply.truncated) return { ok: true, extraction: parsed.extraction, messages, answer };
      if (parsed.ok) partial = { extraction: parsed.extraction, messages, answer };
      error = parsed.ok ? CUT_OFF : parsed.error;
      rawOutput = answer;
      messages = retryMessages(messages, answer, error);
    }
    if (partial) return { ok: true, ...partial };
    const tries = this.options.parseAttempts === 1 ? "1 attempt" : `${this.options.parseAttempts} attempts`;
    return { ok: false, error: `Unreadable extraction output after ${tries}: ${error}`, rawOutput };
  }

  private async glean(first: Round): Promise<Extraction[]> {
    const rounds = [first.extraction];
    let { messages, answer } = first;
    for (let round = 0; round < this.options.gleaning; round++) {
      const next = gleanMessages(messages, answer, this.options);
      const reply = await this.ask("glean", next);
      const parsed = parseExtraction(reply.text);
      // An unreadable glean answer is ignored and gleaning stops: the first round already stands
      // on its own, and the conversation cannot sensibly continue from a broken answer. A cut-off
      // one is kept for what it holds, and gleaning stops for the same reason.
      if (!parsed.ok) break;
      rounds.push(parsed.extraction);
      if (reply.truncated) break;
      messages = next;
      answer = reply.text;
    }
    return rounds;
  }

  private ask(stage: Stage, messages: ChatMessage[]): Promise<ChatResponse> {
    return this.chat.chat({
      stage,
      messages,
      jsonSchema: EXTRACTION_JSON_SCHEMA,
      acceptAnswer: isParseable,
    });
  }
}
