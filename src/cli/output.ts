import stringWidthOfAnyText from "string-width";

/**
 * Printable ASCII (one column per character) mixed with the full-width characters of Chinese
 * titles: CJK ideographs (with extension A and the compatibility block), CJK punctuation up to
 * U+3029 (the tone marks after it are combining) and full-width forms. Each is one code unit, one grapheme and two columns, as
 * string-width says too (a unit test checks every one of them).
 */
const ASCII_AND_WIDE_CJK = /^[\x20-\x7e\u3001-\u3029\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff01-\uff60]*$/;
const WIDE_CJK = /[^\x20-\x7e]/g;

/**
 * Display width in terminal columns. string-width builds large Unicode tables on its first call
 * (tens of milliseconds of every command's start-up), so ASCII cells, most of them, and Chinese
 * titles (the demo's `kgrag status`) are measured without it.
 */
function stringWidth(text: string): number {
  if (ASCII_AND_WIDE_CJK.test(text)) return text.length + (text.match(WIDE_CJK)?.length ?? 0);
  return stringWidthOfAnyText(text);
}

/**
 * Columns are padded by display width, not string length: a CJK character takes two terminal
 * columns, so padding by `.length` would push every later column of a Chinese row out of line.
 */
export function formatTable(headers: string[], rows: (string | number | null)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === null ? "" : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => stringWidth(r[i] ?? ""))));
  return cells
    .map((r, ri) => {
      const line = r
        .map((c, i) => padToWidth(c, widths[i] ?? 0))
        .join("  ")
        .trimEnd();
      return ri === 0 ? `${line}\n${widths.map((w) => "-".repeat(w)).join("  ")}` : line;
    })
    .join("\n");
}

/** Cuts text to at most `width` terminal columns, marking the cut with "…". */
export function truncateToWidth(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  let kept = "";
  let used = 1; // the ellipsis
  for (const segment of graphemes(text)) {
    used += stringWidth(segment);
    if (used > width) break;
    kept += segment;
  }
  return `${kept}…`;
}

/** User-perceived characters; in ASCII and wide CJK text each code unit is one, without ICU's segmenter. */
function graphemes(text: string): Iterable<string> {
  if (ASCII_AND_WIDE_CJK.test(text)) return text;
  return Array.from(new Intl.Segmenter().segment(text), ({ segment }) => segment);
}

function padToWidth(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - stringWidth(text)));
}
