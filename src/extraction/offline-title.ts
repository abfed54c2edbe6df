/**
 * The titles kgrag gives documents that have none: the file name ("zh.txt", see titleFromFileName)
 * or the .jsonl line ("passages.jsonl line 5"). They name a file, not a subject.
 */
const FILE_NAME = /\.(txt|md|markdown|pdf|docx?|html?|jsonl?|csv|rtf)(\s+line\s+\d+)?$/i;

/**
 * The entity a document title names, or null when the title is only a file name or a path.
 * Wikipedia-style qualifiers are dropped ("Lilu (mythology)" → "Lilu") because passages write the
 * bare name; so are a leading English article and a final dot ("Brewing Co."), as the name finder
 * drops them in running text. A lower-case subtitle ("Vessen: a city guide") and a Chinese
 * description word ("澄州城市简介", "星河动力公司简介") describe the subject, so they go too.
 */
export function titleEntityName(title: string): string | null {
  const trimmed = title.replace(/\s+/g, " ").trim();
  if (!trimmed || FILE_NAME.test(trimmed) || /[\\/]/.test(trimmed)) return null;
  const name = trimmed
    .replace(/\s*[(（][^()（）]*[)）]$/, "")
    .replace(/^(.+?)[:：]\s*\p{Ll}.*$/u, "$1")
    .replace(/(?<=\p{Script=Han}{2})(城市|公司|集团|企业)?(简介|概况|介绍|概述|小传|传略|档案)$/u, "")
    .replace(/^(the|a|an)\s+(?=\p{Lu})/iu, "")
    .replace(/\.$/, "")
    .trim();
  return name || trimmed;
}

/** Words a title's name may leave out of the passage's wording ("Bible translations into Tibetan"). */
const FUNCTION_WORDS = new Set([
  "a",
  "an",
  "the",
  "of",
  "in",
  "into",
  "on",
  "at",
  "to",
  "for",
  "by",
  "from",
  "with",
  "and",
  "or",
  "s",
]);
/** Letters and digits of scripts written with spaces between words (not Han, kana or Hangul). */
const SPACED_WORD_CHAR =
  /^(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])[\p{L}\p{N}]$/u;
/** Escaped characters some sources leave in titles ("Simon &amp; Simon"). */
const HTML_ENTITY = /&(?:amp|quot|apos|lt|gt|#\d+);/g;

/**
 * Whether the passage's sentences name the title's subject: the name itself, in any case and
 * punctuation ("The demon algorithm is..." for "Demon algorithm"), or every word of it as written
 * ("Christopher Edward Nolan" for "Christopher Nolan"), give or take the capital a title gives its
 * first word ("The Sonata in C major for flute" for "Flute Sonata in C major"), an initial ("Ann
 * Bradford Davis" for "Ann B. Davis"), a given name's short form before a surname the text
 * writes ("Edmund Irvine" for "Eddie Irvine"), a first word the text writes in another form
 * ("Israel" for "Israeli"), and lower-case words that describe a name or number the text writes
 * ("draft history" in "Tampa Bay Buccaneers draft history", "presidential election" in "Israeli
 * presidential election, 2000"). A title the text never names, such as a report's
 * "Quarterly Report" or a news item's headline, describes the document instead.
 */
export function titleNamedIn(name: string, sentences: readonly string[]): boolean {
  const text = sentences.join("\n");
  if (containsWords(comparable(text), comparable(name))) return true;
  const written = wordsOf(text);
  const asWritten = new Set(written);
  const lowerCase = new Set(written.map((word) => word.toLowerCase()));
  const words = wordsOf(name).filter((word) => !FUNCTION_WORDS.has(word.toLowerCase()));
  const surnameWritten = asWritten.has(words.at(-1) ?? "");
  const nameWritten = words.slice(1).some((word) => /^[\p{Lu}\p{N}]/u.test(word) && asWritten.has(word));
  return (
    words.length > 0 &&
    words.every(
      (word, i) =>
        asWritten.has(word) ||
        (i === 0 && (lowerCase.has(word.toLowerCase()) || written.some((w) => sharesStem(word, w)))) ||
        (i > 0 && nameWritten && /^\p{Ll}/u.test(word)) ||
        (isInitial(word) && written.some((w) => w.length > 1 && w.startsWith(word))) ||
        (surnameWritten && i < words.length - 1 && written.some((w) => isShortFormOf(word, w))),
    )
  );
}

/** "Israeli" and "Israel", "Elections" and "election": one word ends the other by a letter or two. */
function sharesStem(a: string, b: string): boolean {
  const [short, long] =
    a.length <= b.length ? [a.toLowerCase(), b.toLowerCase()] : [b.toLowerCase(), a.toLowerCase()];
  return short.length >= 5 && long.length - short.length <= 2 && long.startsWith(short);
}

function isInitial(word: string): boolean {
  return word.length === 1 && /\p{Lu}/u.test(word);
}

/** "Eddie" for "Edmund", "Rudy" for "Rudolph": capitalised given names that open alike. */
function isShortFormOf(word: string, other: string): boolean {
  return (
    word.length >= 3 &&
    other.length >= 3 &&
    /^\p{Lu}\p{Ll}/u.test(word) &&
    other.slice(0, 2) === word.slice(0, 2)
  );
}

/** Lower-case letters and digits, one space between runs. */
function comparable(text: string): string {
  return wordsOf(text).join(" ").toLowerCase();
}

/** `name` in `text`, not inside a longer word ("Lilu" is not in "Liluan"; Chinese has no spaces to mind). */
function containsWords(text: string, name: string): boolean {
  if (!name) return false;
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    const before = text[at - 1] ?? " ";
    const after = text[at + name.length] ?? " ";
    if (!(joinsWord(before, name[0]!) || joinsWord(name.at(-1)!, after))) return true;
  }
  return false;
}

/** Two neighbouring characters of one word in a script written with spaces. */
function joinsWord(a: string, b: string): boolean {
  return SPACED_WORD_CHAR.test(a) && SPACED_WORD_CHAR.test(b);
}

function wordsOf(text: string): string[] {
  return text
    .normalize("NFKC")
    .replace(HTML_ENTITY, " ")
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}
