import { analyzeText } from "../../nlp/analyze.js";

/**
 * What kind of thing an answer names: a person (who), a place (where), a time (when), a number
 * (how many), or some named entity (which company...). A question of two clauses may ask for two.
 */
export type AnswerKind = "person" | "place" | "time" | "number" | "entity";

export interface QuestionType {
  /** The kinds of answer the question asks for, in clause order, each once; empty when unknown. */
  kinds: AnswerKind[];
  /** A whole-corpus question ("What are the main themes?"): theme words and no name in it. */
  theme: boolean;
}

/** "which/what <noun>" nouns that ask for a person or a place rather than any named thing. */
const PERSON_NOUNS =
  "person|people|man|woman|actor|actress|director|writer|author|singer|professor|founder|player|artist|" +
  "musician|politician|poet|composer|producer|scientist|leader|president|king|queen|ceo|teacher";
const PLACE_NOUNS = "city|country|town|village|state|place|region|county|island|province|nation|continent";
const TIME_NOUNS = "year|date|decade|century|month|day|era";

/** Each pattern is tried on the lower-cased question; every kind found counts, in order of position. */
const KIND_PATTERNS: [AnswerKind, RegExp][] = [
  ["person", /\bwho(m|se)?\b/],
  ["person", new RegExp(`\\b(which|what)\\s+(\\w+\\s+)?(${PERSON_NOUNS})\\b`)],
  ["place", /\bwhere\b/],
  ["place", new RegExp(`\\b(which|what|in which|in what)\\s+(\\w+\\s+)?(${PLACE_NOUNS})\\b`)],
  ["time", /\bwhen\b/],
  ["time", new RegExp(`\\b(which|what)\\s+(${TIME_NOUNS})\\b`)],
  ["number", /\bhow\s+(many|much|old|long|far|tall|high|big|large)\b/],
  [
    "entity",
    /\b(which|what)\s+(\w+\s+)?(company|firm|organi[sz]ation|band|team|film|movie|book|album|song|group|school|university|product|magazine|newspaper|show|series|game|brand)\b/,
  ],
  ["person", /谁|哪位|哪个人|什么人/],
  ["place", /哪里|哪儿|何地|何处|什么地方|哪个(城市|国家|地方|省|镇)|哪座|哪(国|省|市)/],
  ["time", /何时|什么时候|哪一?年|哪天|几月|何年|哪个年代/],
  ["number", /多少|几(个|位|家|种|名|人|座|次|岁)/],
  ["entity", /哪(家|款|个|些|一)/],
];

const THEME_WORDS =
  /\b(themes?|topics?|overview|summary|summari[sz]e|main ideas?|subjects? covered|groups?|communit(?:y|ies)|clusters?|categor(?:y|ies)|key points)\b|主题|话题|概述|概况|总结|主要内容|讲了什么|哪些群体|分类/;

export function questionType(question: string): QuestionType {
  const lower = question.normalize("NFKC").toLowerCase();
  const found: { kind: AnswerKind; at: number }[] = [];
  for (const [kind, pattern] of KIND_PATTERNS) {
    const match = pattern.exec(lower);
    if (match) found.push({ kind, at: match.index });
  }
  // "哪个城市" also reads as the generic "哪个": the specific kind found at the same place wins.
  const specific = found.filter(
    (f) => f.kind !== "entity" || !found.some((g) => g.kind !== "entity" && g.at === f.at),
  );
  const ordered = specific.sort((a, b) => a.at - b.at).map((f) => f.kind);
  // The question as asked: a capitalised word is how a name the tagger misses is told apart.
  return { kinds: [...new Set(ordered)], theme: isThemeQuestion(question) };
}

/**
 * Theme words and no named entity: "What are the main themes of this collection?" is about the
 * whole corpus; "What are the main themes of Hamlet?" is about Hamlet.
 */
export function isThemeQuestion(question: string): boolean {
  if (!THEME_WORDS.test(question.normalize("NFKC").toLowerCase())) return false;
  // A capitalised word after the first is a name even where the tagger missed it ("of Hamlet?").
  if (/\s\p{Lu}/u.test(question.trim())) return false;
  return !analyzeText(question).mentions.some((m) => m.named);
}

/**
 * The parts of a question that each ask for something: "Which company supplies the lenses, and
 * who founded it?" and "听潮芯片是哪家公司研发的？这家公司的创始人出生在哪里？" ask two things each.
 */
export function questionClauses(question: string): string[] {
  const parts = question
    .split(/[?？;；]+|[,，]\s*(?:and|but|然后|并且|而且)\s+|[,，]\s*(?=(?:who|where|when|which|what|how)\b)/i)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  return parts.length > 0 ? parts : [question];
}

/** Words kept inside a name ("Bank of England", "Géza von Cziffra", "Escape from the Dark"). */
export const NAME_CONNECTORS = new Set([
  "of",
  "the",
  "from",
  "de",
  "du",
  "da",
  "del",
  "der",
  "van",
  "von",
  "and",
  "&",
]);

/**
 * The options of a choice question, whose answer is one of them: "Who was born first, Giotto or
 * Frederick Law Olmsted?", "Which band was formed first The Exies or Circus Diablo?". Each is the
 * text after the first comma before " or " (else the capitalised name just before it) and the text after
 * it, without leading lower-case words ("the birth of Robert Young": Robert Young). Empty for any
 * other question, and for Chinese.
 */
export function questionOptions(question: string): string[] {
  const body = question
    .normalize("NFKC")
    .trim()
    .replace(/[\s?]+$/, "");
  if (!/^(which|who|what)\b/i.test(body)) return [];
  const or = body.lastIndexOf(" or ");
  if (or < 0) return [];
  const before = body.slice(0, or);
  // The first comma: a name may hold one ("Fernando Álvarez de Toledo, 3rd Duke of Alba").
  const comma = before.indexOf(",");
  const first = comma >= 0 ? withoutLeadingLowerCase(before.slice(comma + 1)) : trailingName(before);
  const second = withoutLeadingLowerCase(body.slice(or + 4));
  return first && second && !second.includes(",") ? [first, second] : [];
}

/** The capitalised words a text ends with, connectors inside kept: "...first the forming of The Dandy Warhols". */
function trailingName(text: string): string {
  const words = text.trim().split(/\s+/);
  let start = words.length;
  for (let i = words.length - 1; i >= 0; i--) {
    const word = words[i] ?? "";
    if (/^\p{Lu}/u.test(word)) start = i;
    else if (!NAME_CONNECTORS.has(word) || i === 0 || !/^\p{Lu}/u.test(words[i - 1] ?? "")) break;
  }
  return words.slice(start).join(" ");
}

/** "the Cotula" -> "Cotula"; a text without a capital keeps all but its articles ("the red one"). */
function withoutLeadingLowerCase(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.search(/(?<=^|\s)\p{Lu}/u);
  if (capital >= 0) return trimmed.slice(capital);
  return trimmed.replace(/^(?:the|a|an)\s+/i, "");
}
