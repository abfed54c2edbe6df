import type { AnswerPiece } from "./citations.js";

type Range = { start: number; end: number };

/** Where a sentence ends: a full stop, question or exclamation mark (with closing quotes or brackets),
 * followed by a space in Western text, directly in Chinese. */
const SENTENCE_END = /[.!?]["'”’)\]]*(?=\s)|[。！？]["'”’」』)\]]*/gu;
const SENTENCES = new Intl.Segmenter(undefined, { granularity: "sentence" });
const WORDS = new Intl.Segmenter(undefined, { granularity: "word" });
/** A share of the claim's words the passage sentence must hold to be taken as what it cites. */
const MIN_SHARED_SHARE = 0.3;
/** ...and at least this many words (one shared word alone says little). */
const MIN_SHARED_WORDS = 2;

/**
 * Words that say nothing of what a sentence is about, so sharing them is no sign of support: "It
 * is in the north of the country" must not find "The city is in the south of the region." A small
 * English list, and Chinese function characters (the segmenter gives them as words of their own).
 */
const STOPWORDS: ReadonlySet<string> = new Set([
  ..."a an the and or but nor if so as at by for from in into of off on onto out over to up with".split(" "),
  ..."about after before between than then there here this that these those which who whom whose what".split(
    " ",
  ),
  ..."is are was were be been being am has have had do does did will would can could shall should may".split(
    " ",
  ),
  ..."might must not no it its he him his she her hers they them their theirs we us our you your i me my".split(
    " ",
  ),
  ..."also just only very such some any all each both".split(" "),
  ..."的 了 是 在 和 与 及 或 于 也 都 就 而 之 着 过 把 被 这 那 其 它 他 她 们 个 吗 呢 吧 啊".split(" "),
  ..."一个 是在 它是 这个 那个 我们 他们 她们 它们 以及 并且 而且 或者 因为 所以".split(" "),
]);

/**
 * The sentence of the answer a citation belongs to: the text before it back to the previous
 * sentence's end ("Vale founded it [1]." gives "Vale founded it"; "It was 1984. [2]" gives "It was
 * 1984."), other citations left out.
 */
export function claimOf(pieces: readonly AnswerPiece[], citationIndex: number): string {
  const before = pieces
    .slice(0, citationIndex)
    .map((piece) => ("text" in piece ? piece.text : ""))
    .join("")
    .trimEnd();
  let start = 0;
  for (const match of before.matchAll(SENTENCE_END)) {
    const end = (match.index ?? 0) + match[0].length;
    if (end < before.length) start = end;
  }
  return before.slice(start).trim();
}

/**
 * The passage sentence that says most of what the claim says: the one sharing the largest share
 * of the claim's words, stopwords not counted (at least MIN_SHARED_SHARE of them, and
 * MIN_SHARED_WORDS), as a character range without its surrounding spaces; undefined when none
 * does. Extractive answers quote the passage, so their sentence is found whole; a model's
 * paraphrase usually keeps enough words.
 */
export function supportingSentence(text: string, claim: string): Range | undefined {
  const wanted = wordsOf(claim);
  if (wanted.size === 0) return undefined;
  let best: { range: Range; shared: number } | undefined;
  for (const { segment, index } of SENTENCES.segment(text)) {
    const words = wordsOf(segment);
    let shared = 0;
    for (const word of wanted) if (words.has(word)) shared += 1;
    if (shared < MIN_SHARED_WORDS || shared / wanted.size < MIN_SHARED_SHARE) continue;
    if (best && shared <= best.shared) continue;
    const start = index + (segment.length - segment.trimStart().length);
    best = { range: { start, end: index + segment.trimEnd().length }, shared };
  }
  return best?.range;
}

/**
 * The distinct words of a text that say what it is about, lower-cased, stopwords left out
 * (Intl.Segmenter also splits Chinese into words).
 */
function wordsOf(text: string): Set<string> {
  const words = new Set<string>();
  for (const { segment, isWordLike } of WORDS.segment(text)) {
    if (!isWordLike) continue;
    const word = segment.toLowerCase();
    if (!STOPWORDS.has(word)) words.add(word);
  }
  return words;
}
