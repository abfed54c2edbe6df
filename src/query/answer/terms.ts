import { stemmer } from "stemmer";
import { chineseSegmenter } from "../../nlp/jieba.js";
import { wordLikeSegments } from "../../nlp/word-segments.js";
import { lazySegmenter } from "../../util/lazy-segmenter.js";

/** Word-level terms for matching a question against sentences, in any language ICU segments. */
const words = lazySegmenter("en", "word");

// Function words and question words carry no topic; matching on them would rank every sentence alike.
const STOPWORDS = new Set(
  (
    "a an and are as at be been but by did do does for from had has have he her his how i if in into is it its " +
    "me my not of on or our she so than that the their them then there these they this those to was we were " +
    "what when where which who whom whose why will with would you your many much " +
    "的 了 是 他 她 它 他们 她们 它们 在 和 与 及 或 也 都 就 而 之 其 这 那 哪 什么 谁 吗 呢 吧 啊 有 个 为 被 把 从 对 于 " +
    "这家 那家 这些 那些 这个 那个 一个 以 家 哪里 哪儿 哪家 哪个 哪些 哪位 哪一 哪年 哪款 何时 何地 何处 多少 几 时候 什么时候 怎么 怎样 如何 为什么"
  ).split(" "),
);

const LATIN_WORD = /^[a-z]+$/;
const HAN_RUN = /\p{Script=Han}+/gu;
const WORD_LIKE = /[\p{L}\p{N}]/u;

/** A content word: its main term (the stem) and every form that counts as it. */
export interface ContentWord {
  term: string;
  forms: string[];
}

/**
 * Lower-cased, width-folded words without function words. Chinese runs are cut into words by
 * jieba in search mode, long words with their parts (港口城市, 港口, 城市); ICU would leave unknown
 * names such as 白湾镇 in single characters. English words count as their Porter stem and as
 * written, so "founded" meets "founding", and "lens" still meets "lenses" (stemmed "len" and "lens").
 */
export function contentWords(text: string): ContentWord[] {
  const out: ContentWord[] = [];
  const folded = text.normalize("NFKC").toLowerCase();
  let last = 0;
  for (const run of folded.matchAll(HAN_RUN)) {
    out.push(...otherWords(folded.slice(last, run.index)), ...chineseWords(run[0]));
    last = run.index + run[0].length;
  }
  out.push(...otherWords(folded.slice(last)));
  return out;
}

/** Every form of every content word: what a sentence is matched on. */
export function contentTerms(text: string): string[] {
  return contentWords(text).flatMap((w) => w.forms);
}

function otherWords(text: string): ContentWord[] {
  const out: ContentWord[] = [];
  for (const word of wordLikeSegments(text, words)) {
    if (STOPWORDS.has(word)) continue;
    const term = stem(word);
    out.push({ term, forms: term === word ? [term] : [term, word] });
  }
  return out;
}

/**
 * jieba's search-mode words with its HMM (which finds unknown names, 白湾镇) and without it (the
 * HMM sometimes glues a name to the next word, 李明出 | 生于, where the dictionary alone reads
 * 李明 | 出生); single characters of the dictionary-only cut are left out.
 */
function chineseWords(run: string): ContentWord[] {
  const jieba = chineseSegmenter();
  const words = new Set([
    ...jieba.cutForSearch(run, true),
    ...jieba.cutForSearch(run, false).filter((w) => [...w].length > 1),
  ]);
  return [...words]
    .filter((w) => WORD_LIKE.test(w) && !STOPWORDS.has(w))
    .map((term) => ({ term, forms: [term] }));
}

/**
 * Stems of words seen before: reports and passages repeat their words, and the stemmer was most of
 * a report's content words once segmenting got cheap. Forgotten all at once past REMEMBERED_STEMS.
 */
const stems = new Map<string, string>();
const REMEMBERED_STEMS = 100_000;

function stem(word: string): string {
  let found = stems.get(word);
  if (found === undefined) {
    found = LATIN_WORD.test(word) ? stemmer(word) : word;
    if (stems.size >= REMEMBERED_STEMS) stems.clear();
    stems.set(word, found);
  }
  return found;
}

/**
 * The verb behind an agent noun ("founder" -> "found", "director" -> "direct"): a question asks
 * about the founder, the passage says who founded it. Undefined for any other word.
 */
export function agentNounVerb(term: string): string | undefined {
  const match = /^([a-z]{4,})(?:er|or)$/.exec(term);
  return match?.[1];
}
