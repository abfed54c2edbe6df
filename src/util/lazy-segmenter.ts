/**
 * An Intl.Segmenter made on first use. The first segmenter a process builds loads ICU's break
 * data (about 20 ms); built at module load, every command paid it at start-up, even those that
 * never segment text.
 */
export function lazySegmenter(
  locale: string | undefined,
  granularity: Intl.SegmenterOptions["granularity"],
): () => Intl.Segmenter {
  let segmenter: Intl.Segmenter | undefined;
  return () => {
    segmenter ??= new Intl.Segmenter(locale, { granularity });
    return segmenter;
  };
}
