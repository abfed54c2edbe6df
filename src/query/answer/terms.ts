/** Word-level terms for matching a question against sentences, in any language ICU segments. */
const words = new Intl.Segmenter("en", { granularity: "word" });

// Function words carry no topic; matching on them would rank every sentence alike.
const STOPWORDS = new Set(
  (
    "a an and are as at be been but by did do does for from had has have he her his how i if in into is it its " +
    "me my not of on or our she so than that the their them then there these they this those to was we were " +
    "what when where which who whom whose why will with would you your " +
    "的 了 是 在 和 与 及 或 也 都 就 而 之 其 这 那 哪 什么 谁 吗 呢 吧 啊 有 个 为 被 把 从 对 于"
  ).split(" "),
);

/** Lower-cased, width-folded words without function words; Chinese is split into words by ICU. */
export function contentTerms(text: string): string[] {
  const out: string[] = [];
  for (const s of words.segment(text.normalize("NFKC").toLowerCase())) {
    if (s.isWordLike && !STOPWORDS.has(s.segment)) out.push(s.segment);
  }
  return out;
}
