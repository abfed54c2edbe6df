import type { Metadata } from "../types.js";

/**
 * A PDF document keeps where each page starts in its text as metadata (a comma list, since
 * metadata values are plain text or numbers in both stores); a chunk's page follows from its span.
 */
export const PAGE_STARTS_KEY = "pageStarts";

export function pageStartsMetadata(pageStarts: number[]): Metadata {
  return { [PAGE_STARTS_KEY]: pageStarts.join(","), pages: pageStarts.length };
}

export function pageStartsOf(metadata: Metadata): number[] | undefined {
  const raw = metadata[PAGE_STARTS_KEY];
  if (typeof raw !== "string" || raw === "") return undefined;
  const starts = raw.split(",").map(Number);
  return starts.every(Number.isInteger) ? starts : undefined;
}

/** The 1-based page holding character `offset`: the last page starting at or before it. */
export function pageAt(pageStarts: number[], offset: number): number {
  let page = 1;
  pageStarts.forEach((start, i) => {
    if (start <= offset) page = i + 1;
  });
  return page;
}

/** The first and last page of the span [start, end). */
export function pagesOfSpan(
  pageStarts: number[],
  start: number,
  end: number,
): { page: number; pageEnd: number } {
  return { page: pageAt(pageStarts, start), pageEnd: pageAt(pageStarts, Math.max(start, end - 1)) };
}
