import type { ChatModel } from "../llm/chat-model.js";
import { renderPrompt } from "../llm/prompts.js";
import { countTokens, truncateToTokens } from "../util/tokens.js";
import type { DescriptionSummarizer } from "./summarizer.js";

export interface LlmSummarizerOptions {
  /** Input window of one summary call; fragments beyond it are map-reduced. */
  summaryContextTokens: number;
  /** Target length of a summary. */
  summaryMaxTokens: number;
  /** Output language (config.extraction.language); "auto", the default, follows the fragments. */
  language?: string;
}

type Subject = Parameters<DescriptionSummarizer["summarize"]>[0];

/** Smallest input window left for fragments, however small the configured context. */
const MIN_FRAGMENT_BUDGET = 128;
/** Allowance for the "N. " prefix and newline the prompt puts around each fragment. */
const LIST_PREFIX_TOKENS = 4;

/**
 * Summarises description fragments with the chat model. When they do not fit one call they are
 * split into groups that do (map), each group is summarised, and the summaries are summarised in
 * turn (reduce) until one call holds them all.
 */
export class LlmDescriptionSummarizer implements DescriptionSummarizer {
  readonly kind = "llm" as const;

  constructor(
    private readonly chat: ChatModel,
    private readonly opts: LlmSummarizerOptions,
  ) {}

  async summarize(subject: Subject, fragments: string[]): Promise<string> {
    if (fragments.length === 0) return "";
    const budget = this.fragmentBudget(subject);
    let items = fragments;
    for (let round = 0; ; round += 1) {
      // Reduce rounds cap items at half the window, so groups hold two or more and each round shrinks.
      const itemCap = round === 0 ? budget - LIST_PREFIX_TOKENS : Math.floor(budget / 2) - LIST_PREFIX_TOKENS;
      const groups = packGroups(items, itemCap, budget);
      if (round > 0 && groups.length >= items.length) {
        throw new Error("Description summaries do not shrink; raise merge.summaryContextTokens");
      }
      const summaries = await Promise.all(groups.map((group) => this.summarizeGroup(subject, group)));
      if (summaries.length === 1) return summaries[0]!;
      items = summaries;
    }
  }

  private async summarizeGroup(subject: Subject, fragments: string[]): Promise<string> {
    const response = await this.chat.chat({
      stage: "summarize",
      messages: [{ role: "user", content: this.prompt(subject, fragments) }],
      temperature: 0,
      // Room past the target, so a slightly long answer ends on a sentence rather than mid-word.
      maxTokens: Math.ceil(this.opts.summaryMaxTokens * 1.5),
    });
    const summary = response.text.trim();
    if (!summary) throw new Error(`The model returned an empty summary for ${subject.kind} ${subject.name}`);
    return summary;
  }

  private prompt(subject: Subject, fragments: string[]): string {
    return renderPrompt("summarize", {
      subject_kind: subject.kind,
      subject_name: subject.name,
      language: outputLanguage(this.opts.language),
      max_tokens: this.opts.summaryMaxTokens,
      fragments: fragments.map((fragment, i) => `${i + 1}. ${fragment}`).join("\n"),
    });
  }

  /** Tokens left for fragments once the instructions and the answer have their share of the window. */
  private fragmentBudget(subject: Subject): number {
    const instructions = countTokens(this.prompt(subject, []));
    const budget = this.opts.summaryContextTokens - instructions - this.opts.summaryMaxTokens;
    return Math.max(MIN_FRAGMENT_BUDGET, budget);
  }
}

function outputLanguage(language = "auto"): string {
  return language === "auto" ? "the language most fragments are written in" : language;
}

/** Greedy, order-keeping groups whose tokens fit the budget; items are first cut to `itemCap`. */
export function packGroups(items: string[], itemCap: number, budget: number): string[][] {
  const groups: string[][] = [];
  let current: string[] = [];
  let used = 0;
  for (const item of items) {
    const text = truncateToTokens(item, itemCap);
    const tokens = countTokens(text) + LIST_PREFIX_TOKENS;
    if (current.length > 0 && used + tokens > budget) {
      groups.push(current);
      current = [];
      used = 0;
    }
    current.push(text);
    used += tokens;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}
