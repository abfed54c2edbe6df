import type { Jieba, TfIdf } from "@node-rs/jieba";
import {
  joinOrganizationNames,
  joinSurnames,
  joinTransliterations,
  mention,
  namesIn,
  splitSpeechVerbs,
  type Word,
} from "./chinese-names.js";
import { joinWholeNames, wholeNames } from "./chinese-whole-names.js";
import { GENERIC_NOUNS, LIGHT_VERBS, NOUN_TAGS, ORGANIZATION_SUFFIXES } from "./chinese-words.js";
import { chineseTools } from "./jieba.js";
import { type JoinedText, joinWrappedCjk, unwrapLines } from "./line-breaks.js";
import type { ContentWord, Mention, Sentence, TextAnalysis } from "./types.js";

const MAX_PHRASE_WORDS = 3;
const MAX_PHRASE_CHARS = 8;
const SALIENT_COUNT = 20;
/** Salient keywords added as concepts when no mention covers them. */
const SALIENT_CONCEPTS = 3;
const SALIENT_TAGS = ["n", "nr", "nrt", "ns", "nt", "nz", "vn", "eng"];
const HAN = /\p{Script=Han}/u;
/**
 * IDF from which jieba's table counts a word as rare. Its median word scores about 12; titles and
 * everyday nouns score below 8.6 (执行官 8.5, 副总裁 8.4, 市场 3.3), words coined for names above
 * (星河 12.0, 鸿蒙 11.3).
 */
const RARE_WORD_IDF = 9;
/** A work's title between 《》 (books, films, songs, laws), at most this long. */
const WORK_TITLE = /《([^《》\n]{1,40})》/gu;

/**
 * Splits on 。！？； and on the line breaks that end a sentence, keeping the end mark in the
 * sentence; a line that only wraps a sentence ("一家芯片\n设计公司") does not split it.
 */
export function chineseSentences(text: string, reading = unwrapLines(text)): Sentence[] {
  const sentences: Sentence[] = [];
  for (const match of reading.matchAll(/[^。！？；\n]+[。！？；]*/g)) {
    const raw = match[0];
    const start = match.index + (raw.length - raw.trimStart().length);
    const end = match.index + raw.trimEnd().length;
    if (end > start) sentences.push({ text: text.slice(start, end), start, end });
  }
  return sentences;
}

/**
 * Chinese analysis with jieba: part-of-speech tags give people (nr), places (ns) and organisations
 * (nt); unknown words jieba's HMM found are classed by surname and suffix; runs of nouns and the
 * top TF-IDF keywords are concepts.
 */
export function analyzeChinese(
  text: string,
  reading = unwrapLines(text),
  knownNames: readonly string[] = [],
): TextAnalysis {
  const { jieba, tfIdf } = chineseTools();
  const sentences = chineseSentences(text, reading);
  const analysis: TextAnalysis = { sentences, mentions: [], words: [], salient: [] };
  // jieba reads each sentence with its wrapped lines joined, so a word cut by a line break is whole.
  const joined = sentences.map((sentence) => joinWrappedCjk(sentence.text));
  const tagged = joined.map((sentence, index) =>
    joinOrganizationNames(
      joinSurnames(
        splitSpeechVerbs(
          joinTransliterations(tagWords(jieba.tag(sentence.text, true), sentence, sentences[index]!.start)),
        ),
      ),
    ),
  );
  const whole = wholeNames(tagged, knownNames, rareWords(jieba, tfIdf));
  tagged.forEach((sentenceWords, index) => {
    const words = joinWholeNames(sentenceWords, whole);
    const works = worksIn(sentences[index]!, index);
    const outsideWorks = (m: Mention) => !works.some((w) => m.start >= w.start && m.end <= w.end);
    const names = [...works, ...namesIn(words, index).filter(outsideWorks)];
    const inName = new Set(names.flatMap((m) => words.filter((w) => w.start >= m.start && w.end <= m.end)));
    analysis.mentions.push(...names, ...phrasesIn(words, inName, index));
    analysis.words.push(...contentWordsIn(words, index));
  });
  const all = joined.map((sentence) => sentence.text).join("\n");
  analysis.salient = tfIdf.extractKeywords(jieba, all, SALIENT_COUNT, SALIENT_TAGS).map((k) => k.keyword);
  analysis.mentions.push(...salientConcepts(analysis, joined));
  analysis.mentions.sort((a, b) => a.start - b.start);
  return analysis;
}

function commonNoun(name: string, sentence: number, start: number, end: number): Mention {
  return { ...mention(name, "concept", false, sentence, start, end), chineseCommonNoun: true };
}

/** Titles of works set between 《》 ("《三体》", "《流浪地球》"): names, whatever words they are made of. */
function worksIn(sentence: Sentence, index: number): Mention[] {
  return [...sentence.text.matchAll(WORK_TITLE)].map((match) => {
    const start = sentence.start + match.index + 1;
    return mention(match[1]!, "concept", true, index, start, start + match[1]!.length);
  });
}

/** Looks words up in jieba's IDF table once per passage: a word it does not hold is rare too. */
function rareWords(jieba: Jieba, tfIdf: TfIdf): (word: string) => boolean {
  const seen = new Map<string, boolean>();
  return (word) => {
    let rare = seen.get(word);
    if (rare === undefined) {
      const idf = tfIdf.extractKeywords(jieba, word, 1, [])[0]?.weight ?? Number.POSITIVE_INFINITY;
      rare = idf >= RARE_WORD_IDF;
      seen.set(word, rare);
    }
    return rare;
  };
}

/**
 * The best TF-IDF keywords that are no mention yet (a noun inside a longer phrase, such as 科技
 * in 跨国科技公司) become concepts too, mentioned where they first occur in each sentence. Parts of
 * names and class words such as 公司 are left out.
 */
function salientConcepts(analysis: TextAnalysis, joined: JoinedText[]): Mention[] {
  const known = new Set(analysis.mentions.map((m) => m.name));
  const names = analysis.mentions.filter((m) => m.named).map((m) => m.name);
  const isFresh = (k: string) =>
    HAN.test(k) &&
    k.length >= 2 &&
    !known.has(k) &&
    !GENERIC_NOUNS.has(k) &&
    !ORGANIZATION_SUFFIXES.includes(k);
  const fresh = analysis.salient.filter((k) => isFresh(k) && !names.some((name) => name.includes(k)));
  const found: Mention[] = [];
  for (const keyword of fresh.slice(0, SALIENT_CONCEPTS)) {
    joined.forEach((sentence, index) => {
      const at = sentence.text.indexOf(keyword);
      if (at < 0) return;
      const [start, end] = originalSpan(sentence, at, at + keyword.length, analysis.sentences[index]!.start);
      found.push(commonNoun(keyword, index, start, end));
    });
  }
  return found;
}

/**
 * jieba returns the sentence's words in order, so a running sum gives their place in the joined
 * sentence, and its origin map their place in the text (a wrapped word spans the line break).
 */
function tagWords(tagged: { word: string; tag: string }[], sentence: JoinedText, offset: number): Word[] {
  let at = 0;
  return tagged.map(({ word, tag }) => {
    const [start, end] = originalSpan(sentence, at, at + word.length, offset);
    at += word.length;
    return { word, tag, start, end };
  });
}

/** [start, end) in the joined sentence as offsets in the text, the sentence starting at `offset`. */
function originalSpan(sentence: JoinedText, start: number, end: number, offset: number): [number, number] {
  const last = sentence.origin[Math.max(start, end - 1)]!;
  return [offset + sentence.origin[start]!, offset + (end > start ? last + 1 : last)];
}

/**
 * Runs of nouns ("跨国 科技 公司" → 跨国科技公司) outside names, capped in words and characters. A
 * generic noun ending a run only says which respect ("中文分词方面" → 中文分词), so it is left off.
 */
function phrasesIn(words: Word[], inName: ReadonlySet<Word>, sentence: number): Mention[] {
  const found: Mention[] = [];
  let run: Word[] = [];
  const flush = () => {
    while (run.length > 1 && GENERIC_NOUNS.has(run.at(-1)!.word)) run.pop();
    const name = run.map((w) => w.word).join("");
    if (name.length >= 2 && !GENERIC_NOUNS.has(name)) {
      found.push(commonNoun(name, sentence, run[0]!.start, run[run.length - 1]!.end));
    }
    run = [];
  };
  for (const w of words) {
    const fits =
      run.length < MAX_PHRASE_WORDS &&
      run.reduce((n, r) => n + r.word.length, w.word.length) <= MAX_PHRASE_CHARS;
    if (NOUN_TAGS.has(w.tag) && HAN.test(w.word) && !inName.has(w)) {
      if (!fits) flush();
      run.push(w);
    } else if (run.length) {
      flush();
    }
  }
  if (run.length) flush();
  return found;
}

function contentWordsIn(words: Word[], sentence: number): ContentWord[] {
  const found: ContentWord[] = [];
  for (const w of words) {
    if (w.word.length < 2 || !HAN.test(w.word)) continue;
    if (NOUN_TAGS.has(w.tag) && !GENERIC_NOUNS.has(w.word))
      found.push({ lemma: w.word, pos: "noun", sentence });
    else if (w.tag.startsWith("v") && !LIGHT_VERBS.has(w.word))
      found.push({ lemma: w.word, pos: "verb", sentence });
  }
  return found;
}
