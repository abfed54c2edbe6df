import type { z } from "zod";
import type { ExtractionSchema } from "../config.js";
import type { ChatMessage, ChatModel, ChatResponse, Stage } from "../llm/chat-model.js";
import type { ChunkRecord, Extraction } from "../types.js";
import type { ExtractionOutcome, Extractor } from "./extractor.js";
import { extractMessages, gleanMessages, retryMessages } from "./llm-messages.js";
import { mergeRounds } from "./merge-rounds.js";
import { isCompleteExtraction, parseExtraction } from "./parse.js";
import { EXTRACTION_JSON_SCHEMA } from "./schema.js";

export type LlmExtractorOptions = z.infer<typeof ExtractionSchema>;

/** A usable round, with the conversation that produced it so gleaning can continue it. */
interface Round {
  extraction: Extraction;
  messages: ChatMessage[];
  answer: string;
}

/** The outcome of asking until an answer is complete: `cut` when only a cut-short one came back. */
type Asked = { ok: true; round: Round; cut: boolean } | { ok: false; error: string; rawOutput: string };

/** Only complete answers are cached; a cut-short or unreadable one is asked again on the next run. */
const acceptAnswer = isCompleteExtraction;

/** An answer of every shape a reply holds, read once before the first replies come. */
const WARM_UP_ANSWER = JSON.stringify({
  entities: [{ name: "Ada", type: "person", description: "A traveller." }],
  relationships: [
    { source: "Ada", target: "Ben", description: "They meet.", keywords: ["meet"], strength: 5 },
  ],
});

/** What the retry prompt is told when an answer's JSON stopped before it was closed. */
const CUT_OFF =
  "it was cut off before the JSON was complete, so entities and relationships after the cut were lost";

/**
 * Extraction by a chat model: one structured-output call per chunk ("extract"), retried with a
 * corrective prompt while the answer cannot be parsed or was cut short (at the output limit, or
 * with JSON that stops unclosed: repair would close it, silently dropping the rest), then
 * `gleaning` rounds ("glean") asking for what was missed, retried the same way. When no attempt
 * gives a complete answer, the readable part of the latest cut-short one is kept and the outcome
 * is marked partial. Model and transport problems come back as failures, never as exceptions.
 */
export class LlmExtractor implements Extractor {
  readonly kind = "llm" as const;

  constructor(
    private readonly chat: ChatModel,
    private readonly options: LlmExtractorOptions,
  ) {}

  warmUp(): void {
    parseExtraction(WARM_UP_ANSWER);
    gleanMessages([], WARM_UP_ANSWER, this.options);
  }

  async extract(chunk: ChunkRecord, context: { title: string }): Promise<ExtractionOutcome> {
    try {
      const first = await this.askUntilComplete(
        "extract",
        extractMessages(this.options, context.title, chunk.text),
      );
      if (!first.ok) {
        const error = `Unreadable extraction output after ${attempts(this.options)}: ${first.error}`;
        return { ok: false, error, rawOutput: first.rawOutput };
      }
      const gleaned = first.cut ? { rounds: [], cut: null } : await this.glean(first.round);
      const cutRound = first.cut ? first.round : gleaned.cut;
      const extraction = mergeRounds([first.round.extraction, ...gleaned.rounds]);
      if (!cutRound) return { ok: true, extraction };
      return {
        ok: true,
        extraction,
        partial: { reason: partialReason(this.options), rawOutput: cutRound.answer },
      };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, error: `The chat model request failed: ${message}`, rawOutput: null };
    }
  }

  /**
   * Asks up to `parseAttempts` times, each retry telling the model what was wrong. The readable
   * part of the latest cut-short answer stands in if no attempt is complete.
   */
  private async askUntilComplete(stage: Stage, initial: ChatMessage[]): Promise<Asked> {
    let messages = initial;
    let error = "";
    let rawOutput = "";
    let partial: Round | null = null;
    for (let attempt = 1; attempt <= this.options.parseAttempts; attempt++) {
      // Every request after a chunk's first continues its conversation.
      const followUp = stage === "glean" || attempt > 1;
      const reply = await this.ask(stage, messages, followUp);
      const answer = reply.text;
      const parsed = parseExtraction(answer);
      const cut = reply.truncated === true || (parsed.ok && parsed.cutShort);
      if (parsed.ok && !cut)
        return { ok: true, round: { extraction: parsed.extraction, messages, answer }, cut };
      if (parsed.ok) partial = { extraction: parsed.extraction, messages, answer };
      error = parsed.ok ? CUT_OFF : parsed.error;
      rawOutput = answer;
      messages = retryMessages(messages, answer, error);
    }
    if (partial) return { ok: true, round: partial, cut: true };
    return { ok: false, error, rawOutput };
  }

  /**
   * Glean rounds after a complete first round. An unreadable glean answer ends gleaning (the first
   * round stands on its own, and the conversation cannot sensibly continue from a broken answer);
   * a cut-short one is kept for what it holds, ends gleaning too, and makes the outcome partial.
   */
  private async glean(first: Round): Promise<{ rounds: Extraction[]; cut: Round | null }> {
    const rounds: Extraction[] = [];
    let previous = first;
    for (let round = 0; round < this.options.gleaning; round++) {
      const asked = await this.askUntilComplete(
        "glean",
        gleanMessages(previous.messages, previous.answer, this.options),
      );
      if (!asked.ok) break;
      rounds.push(asked.round.extraction);
      if (asked.cut) return { rounds, cut: asked.round };
      previous = asked.round;
    }
    return { rounds, cut: null };
  }

  private ask(stage: Stage, messages: ChatMessage[], followUp: boolean): Promise<ChatResponse> {
    return this.chat.chat({
      stage,
      messages,
      jsonSchema: EXTRACTION_JSON_SCHEMA,
      acceptAnswer,
      followUp,
    });
  }
}

function attempts(options: LlmExtractorOptions): string {
  return options.parseAttempts === 1 ? "1 attempt" : `${options.parseAttempts} attempts`;
}

function partialReason(options: LlmExtractorOptions): string {
  return (
    `partial extraction: the answer was cut short in ${attempts(options)}; only what came before ` +
    "the cut was kept, and the next run asks again"
  );
}
