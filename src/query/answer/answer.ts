import { type CleanedCitations, cleanCitations } from "../../community/citations.js";
import { questionWords, sharesAWord } from "../../community/shared-words.js";
import type { ExtractiveAnswerConfig } from "../../config.js";
import type { ChatMessage, ChatResponse } from "../../llm/chat-model.js";
import { renderPrompt } from "../../llm/prompts.js";
import { OptionsError } from "../../options-error.js";
import type { KgragServices } from "../../services.js";
import type { BuiltContext } from "../context/build-context.js";
import type { HistoryMessage } from "../options.js";
import { citationFilter } from "./citation-stream.js";
import {
  EXTRACTIVE_LABEL,
  extractiveQuotes,
  extractiveText,
  NO_MATCHING_SENTENCE,
} from "./extractive-answer.js";
import { formatHistory } from "./history.js";
import { questionType } from "./question-type.js";
import {
  followsStructuredOutput,
  STRUCTURED_OUTPUT_OFFLINE,
  type StructuredOutput,
  structuredInstruction,
  structuredSpec,
} from "./structured-output.js";

export interface AnswerOptions {
  responseType: string;
  history: HistoryMessage[];
  onToken?: (delta: string) => void;
  /** Answer as JSON in this format (a chat model only): the model's JSON, as it wrote it. */
  structuredOutput?: StructuredOutput;
}

export const NOTHING_FOUND = "Nothing in the indexed documents matches this question.";

const REPORTS_HEADING = "From the community reports (extractive, offline: the reports' own summaries):";

/**
 * What an answer states, without the offline answer's fixed lines (its label, the reports'
 * heading, the line saying no sentence matched): scored against a gold answer, the label's "no
 * LLM" would count as the answer "no" to every yes/no question.
 */
export function answerStatements(answer: string): string {
  const fixed = new Set([EXTRACTIVE_LABEL, REPORTS_HEADING, NO_MATCHING_SENTENCE, NOTHING_FOUND]);
  return answer
    .split("\n")
    .filter((line) => !fixed.has(line.trim()))
    .join("\n");
}

export interface Answer {
  text: string;
  /** What the reader should know about the answer, e.g. citations removed from it (the result's `warnings`). */
  warnings: string[];
}

/**
 * The answer: from the LLM (stage "answer") with [n] citations when one is configured, else the
 * offline extractive answer. Without any passage there is nothing to cite, so no model is asked.
 */
export async function answerQuestion(
  services: KgragServices,
  question: string,
  built: BuiltContext,
  options: AnswerOptions,
): Promise<Answer> {
  if (options.structuredOutput)
    return structuredAnswer(services, question, built, options.structuredOutput, options);
  if (built.context.chunks.length === 0 && built.context.communities.length === 0)
    return { text: NOTHING_FOUND, warnings: [] };
  if (!services.chat)
    return { text: offlineAnswer(question, built, services.config.query.extractive), warnings: [] };
  // The model may copy a report's own [E:n]/[R:n], or cite a report or a passage number the
  // context does not hold: both the streamed and the returned answer are cleaned of them, and the
  // warnings, read from the whole reply, name the sources it cited that it was not given.
  const shown = new Set(built.context.communities.map((c) => c.id));
  const passages = new Set(built.references.map((r) => r.n));
  const stream = options.onToken ? citationFilter(options.onToken, shown, passages) : undefined;
  const reply = await services.chat.chat({
    stage: "answer",
    messages: answerMessages(question, built.text, options),
    onToken: stream ? (delta) => stream.push(delta) : undefined,
  });
  stream?.end();
  const cleaned = cleanCitations(reply.text, shown, passages);
  const text = cleaned.text.trim();
  return { text, warnings: [...replyWarnings(reply, text), ...removedCitationWarnings(cleaned)] };
}

/**
 * The answer as JSON in the format asked, written by the chat model even from an empty context
 * (the prompt has it say what the material lacks), and left as written: citations are not cleaned
 * out of it, nor sources added. A reply that does not follow the format is not cached, and warned of.
 */
async function structuredAnswer(
  services: KgragServices,
  question: string,
  built: BuiltContext,
  output: StructuredOutput,
  options: AnswerOptions,
): Promise<Answer> {
  if (!services.chat) throw new OptionsError(STRUCTURED_OUTPUT_OFFLINE);
  const follows = (text: string) => followsStructuredOutput(text.trim(), output);
  const reply = await services.chat.chat({
    stage: "answer",
    messages: answerMessages(question, built.text, options),
    jsonSchema: structuredSpec(output),
    onToken: options.onToken,
    acceptAnswer: follows,
  });
  const text = reply.text.trim();
  const warnings = replyWarnings(reply, text);
  if (text && !follows(text))
    warnings.push("the model's answer is not JSON that follows the format asked for");
  return { text, warnings };
}

/**
 * An empty or cut-off answer says nothing of why, and small local models send both: an empty one
 * when a reasoning model spends its output allowance on reasoning.
 */
function replyWarnings(reply: ChatResponse, text: string): string[] {
  if (!text) {
    return [
      "the model sent an empty answer (a reasoning model may have spent its output allowance on " +
        "reasoning; llm.maxOutputTokens raises it)",
    ];
  }
  if (reply.truncated) {
    return [
      "the answer was cut off at the model's output limit and ends mid-way (llm.maxOutputTokens raises it)",
    ];
  }
  return [];
}

/** One warning per kind of source cited that the answer was not given: the reader sees a citation went. */
function removedCitationWarnings(cleaned: CleanedCitations): string[] {
  const warnings: string[] = [];
  const { unknownPassages, unknownReports } = cleaned;
  if (unknownPassages.length > 0) {
    const cited = unknownPassages.map((n) => `[${n}]`).join(", ");
    const which = unknownPassages.length === 1 ? "which is" : "which are";
    warnings.push(`the answer cited ${cited}, ${which} not among the sources; removed`);
  }
  if (unknownReports.length > 0) {
    const cited = unknownReports.map((id) => `[C:${id}]`).join(", ");
    const which = unknownReports.length === 1 ? "a community report that is" : "community reports that are";
    warnings.push(`the answer cited ${cited}, ${which} not among the sources; removed`);
  }
  return warnings;
}

/**
 * Offline: the passages' best-matching sentences with their [n] references, then the summaries of
 * the community reports in the context (what whole-corpus questions are answered from), each
 * cited as [C:<id>], which the result's context.communities resolves to the report's title. A
 * whole-corpus question ("What are the main themes?") puts the reports first: they are its answer.
 */
function offlineAnswer(question: string, built: BuiltContext, config: ExtractiveAnswerConfig): string {
  const { communities, chunks } = built.context;
  const theme = questionType(question).theme;
  const quoted =
    chunks.length > 0
      ? extractiveQuotes(question, chunks, built.references, config)
      : { verdict: null, quotes: [] };
  // A question no passage sentence and no report shares a word with is not answered from them.
  if (!theme && quoted.quotes.length === 0 && !aReportSharesAWord(question, communities))
    return NOTHING_FOUND;
  const passages = chunks.length > 0 ? [extractiveText(quoted)] : [];
  const reports =
    communities.length > 0
      ? [
          [
            REPORTS_HEADING,
            ...communities.map((c) => `- ${c.title} [C:${c.id}]: ${c.summary.replace(/\s+/g, " ").trim()}`),
          ].join("\n"),
        ]
      : [];
  const parts = theme ? [...reports, ...passages] : [...passages, ...reports];
  return parts.join("\n\n");
}

/** Whether a report's title or summary shares a content word with the question. */
function aReportSharesAWord(question: string, communities: BuiltContext["context"]["communities"]): boolean {
  const asked = questionWords(question);
  return communities.some((c) => sharesAWord(asked, `${c.title} ${c.summary}`));
}

export function answerMessages(question: string, context: string, options: AnswerOptions): ChatMessage[] {
  const system = renderPrompt("answer", {
    response_type: options.responseType,
    history: formatHistory(options.history),
    context,
  });
  const format = options.structuredOutput ? `\n\n${structuredInstruction(options.structuredOutput)}` : "";
  return [
    { role: "system", content: `${system}${format}` },
    { role: "user", content: question },
  ];
}

/** The prompt's texts before any context is added: their tokens are the budget the context must leave free. */
export function promptOverheadTexts(question: string, options: AnswerOptions): string[] {
  return answerMessages(question, "", options).map((m) => m.content);
}
