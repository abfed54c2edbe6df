import stringWidthOfAnyText from "string-width";

/** Printable ASCII takes one column per character. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Display width in terminal columns. string-width builds large Unicode tables on its first call
 * (tens of milliseconds of every command's start-up), so plain ASCII, most cells, skips it.
 */
function stringWidth(text: string): number {
  return PRINTABLE_ASCII.test(text) ? text.length : stringWidthOfAnyText(text);
}

/** Small helpers shared by commands for printing tables and JSON. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
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
  for (const { segment } of new Intl.Segmenter().segment(text)) {
    used += stringWidth(segment);
    if (used > width) break;
    kept += segment;
  }
  return `${kept}…`;
}

function padToWidth(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - stringWidth(text)));
}
