import { z } from "zod";
import type { JsonSchemaSpec } from "../llm/chat-model.js";
import { readJsonReply } from "../llm/json-reply.js";
import { renderPrompt } from "../llm/prompts.js";
import { questionKeywords } from "../nlp/question-keywords.js";
import type { KgragServices } from "../services.js";
import { BoundedMemo } from "../util/bounded-memo.js";
import { formatHistory } from "./answer/history.js";
import type { HistoryMessage } from "./options.js";
import { entityNamesInQuestion } from "./question-entity-names.js";

/** Low-level: the specific entities a question names; high-level: its themes. */
export interface QueryKeywords {
  high: string[];
  low: string[];
}

const KEYWORDS_SCHEMA: JsonSchemaSpec = {
  name: "query_keywords",
  schema: {
    type: "object",
    properties: {
      high_level_keywords: { type: "array", items: { type: "string" } },
      low_level_keywords: { type: "array", items: { type: "string" } },
    },
    required: ["high_level_keywords", "low_level_keywords"],
    additionalProperties: false,
  },
};

/** Small models sometimes answer a list as one comma-separated string, or leave a list out. */
const KeywordList = z.preprocess(
  (value) => (typeof value === "string" ? value.split(/[,，;；]/) : value),
  z.array(z.unknown()).catch([]),
);
const KeywordsReply = z.object({ high_level_keywords: KeywordList, low_level_keywords: KeywordList });

/**
 * The question's keywords: from the LLM (stage "keywords") when one is configured, else from the
 * offline NLP (names and noun phrases as low-level, theme words as high-level). A reply that
 * cannot be read falls back to the offline keywords; if both levels end up empty the question
 * itself is the keyword.
 */
export async function extractKeywords(
  services: KgragServices,
  question: string,
  history: HistoryMessage[] = [],
): Promise<QueryKeywords> {
  const found = services.chat ? await llmKeywords(services, question, history) : null;
  if (found) return orQuestion(found, question);
  const { offlineKeywordCache, questionNames } = services.config.query;
  const knownNames = await entityNamesInQuestion(services.store, question, questionNames);
  return orQuestion(rememberedOfflineKeywords(question, knownNames, offlineKeywordCache), question);
}

/** `knownNames`: entity names the question spells out, kept whole (see entityNamesInQuestion). */
export function offlineKeywords(question: string, knownNames: readonly string[] = []): QueryKeywords {
  return cleanKeywords(questionKeywords(question, knownNames));
}

/**
 * Offline keywords by question text and the entity names found in it, shared by every workspace of
 * the process (they depend on those alone); the capacity comes from each call (the workspace's
 * query.offlineKeywordCache).
 */
const offlineKeywordsByQuestion = new BoundedMemo<string, QueryKeywords>(1_000);

/** offlineKeywords, remembered for up to `cacheSize` questions (config query.offlineKeywordCache); copies handed out. */
function rememberedOfflineKeywords(
  question: string,
  knownNames: readonly string[],
  cacheSize: number,
): QueryKeywords {
  if (cacheSize <= 0) return offlineKeywords(question, knownNames);
  // Names cannot hold a NUL, so the key is unambiguous.
  const key = knownNames.length ? `${knownNames.join("\u0000")}\u0000\u0000${question}` : question;
  const keywords = offlineKeywordsByQuestion.get(key, () => offlineKeywords(question, knownNames), cacheSize);
  return { high: [...keywords.high], low: [...keywords.low] };
}

async function llmKeywords(
  services: KgragServices,
  question: string,
  history: HistoryMessage[],
): Promise<QueryKeywords | null> {
  const chat = services.chat;
  if (!chat) return null;
  const prompt = renderPrompt("keywords", { question, history: formatHistory(history) });
  const reply = await chat.chat({
    stage: "keywords",
    messages: [{ role: "user", content: prompt }],
    jsonSchema: KEYWORDS_SCHEMA,
    temperature: 0,
    acceptAnswer: (text) => parseKeywordsReply(text) !== null,
  });
  const parsed = reply.truncated ? null : parseKeywordsReply(reply.text);
  if (!parsed)
    services.progress.info("keywords: the model's reply was not readable JSON; using offline keywords");
  return parsed;
}

/**
 * Tolerant reading of the model's JSON (reasoning, code fences, chatter and broken syntax are
 * survived); JSON cut short is not used, since its lists would be missing their end.
 */
export function parseKeywordsReply(text: string): QueryKeywords | null {
  const reply = readJsonReply(text, (json) => KeywordsReply.parse(json));
  if (!reply.ok || reply.cutShort) return null;
  return cleanKeywords({
    high: strings(reply.value.high_level_keywords),
    low: strings(reply.value.low_level_keywords),
  });
}

function strings(values: unknown[]): string[] {
  return values
    .filter((v): v is string | number => typeof v === "string" || typeof v === "number")
    .map(String);
}

function cleanKeywords(keywords: QueryKeywords): QueryKeywords {
  return { high: dedupe(keywords.high), low: dedupe(keywords.low) };
}

function dedupe(values: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of values) {
    const value = raw.trim();
    const key = value.toLowerCase();
    if (value && !seen.has(key)) {
      seen.add(key);
      out.push(value);
    }
  }
  return out;
}

function orQuestion(keywords: QueryKeywords, question: string): QueryKeywords {
  if (keywords.high.length || keywords.low.length) return keywords;
  const q = question.trim();
  return { high: [q], low: [q] };
}
