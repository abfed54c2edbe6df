/**
 * CSV cells as neo4j-admin import reads them: strings always quoted (RFC 4180, quotes doubled), so
 * text may hold commas and newlines (import with --multiline-fields=true); an empty unquoted field
 * is a missing property; lists are joined with U+001E (--array-delimiter="U+001E"), a character
 * kgrag text does not use (it is replaced by a space if it ever appears).
 */
export const ARRAY_DELIMITER = "\u001e";

export type Cell = string | number | boolean | null | string[];

export function renderCsv(header: string[], rows: Cell[][]): string {
  return (
    [header.map(quote), ...rows.map((row) => row.map(cellText))].map((cells) => cells.join(",")).join("\n") +
    "\n"
  );
}

function cellText(cell: Cell): string {
  if (cell === null) return "";
  if (Array.isArray(cell)) {
    return cell.length === 0
      ? ""
      : quote(cell.map((v) => v.replaceAll(ARRAY_DELIMITER, " ")).join(ARRAY_DELIMITER));
  }
  return typeof cell === "string" ? quote(cell) : String(cell);
}

function quote(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}
