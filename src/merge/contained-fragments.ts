/**
 * Description fragments that only repeat the start or the end of another fragment. Two entities
 * merged (or one entity met in overlapping chunks) often bring one sentence twice: whole in one
 * passage, and clipped ("The firm opened a store…"), cut at a chunk's start ("…opened a store in
 * Portland.") or without the sentence after it in the other. The longer fragment says all the
 * shorter one does, so only it is kept; the entity's source passages, which come from its
 * mentions, keep both.
 *
 * Found by sorting, so hubs with thousands of fragments stay cheap: a fragment that starts another
 * sorts right before the run of fragments starting with it, and the same holds for endings on the
 * reversed texts.
 */

/** The marks clipSentence and a chunk cut mid-sentence put where text was left out. */
const ELLIPSIS_ENDS = /^(?:…|\.\.\.)\s*|\s*(?:…|\.\.\.)$/g;
/** Letters and digits of scripts written with spaces between words (not Han, kana or Hangul). */
const SPACED_WORD_CHAR =
  /^(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])[\p{L}\p{N}]$/u;

/** `fragments` without those whose text starts or ends another fragment, order kept. */
export function withoutContainedFragments(fragments: string[]): string[] {
  if (fragments.length < 2) return fragments;
  const texts = fragments.map(comparable);
  const contained = new Set([...startsOfOthers(texts), ...startsOfOthers(texts.map(reversed))]);
  // Two fragments that read the same once compared ("A store…" and "A store") keep the first.
  const first = new Map<string, number>();
  texts.forEach((text, i) => {
    if (!first.has(text)) first.set(text, i);
  });
  return fragments.filter((_, i) => !contained.has(i) && first.get(texts[i]!) === i);
}

/** Case, spacing and the ellipsis marks at either end set aside. */
function comparable(fragment: string): string {
  return fragment.replace(/\s+/g, " ").trim().toLowerCase().replace(ELLIPSIS_ENDS, "");
}

function reversed(text: string): string {
  return [...text].reverse().join("");
}

/** Indices of texts that another, longer text starts with, at a word boundary. */
function startsOfOthers(texts: string[]): number[] {
  const order = texts.map((_, i) => i).sort((a, b) => compare(texts[a]!, texts[b]!));
  const found: number[] = [];
  order.forEach((index, at) => {
    const text = texts[index]!;
    if (text === "") return;
    for (let next = at + 1; next < order.length; next++) {
      const other = texts[order[next]!]!;
      if (!other.startsWith(text)) break;
      if (other.length > text.length && atWordBoundary(text, other)) {
        found.push(index);
        return;
      }
    }
  });
  return found;
}

/** "Paris" starts "Paris is big" at a word's end, but only a word's start in "Parisian cafés". */
function atWordBoundary(start: string, whole: string): boolean {
  return !(SPACED_WORD_CHAR.test(start.at(-1)!) && SPACED_WORD_CHAR.test(whole[start.length]!));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
