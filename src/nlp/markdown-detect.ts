/**
 * Markdown syntax that plain prose practically never contains. A text shows markdown when one of
 * these occurs; without them it is read as written, so plain English and Chinese go to the NLP
 * byte for byte as before.
 */
const MARKDOWN_SIGNALS: readonly RegExp[] = [
  // ATX heading: "# Title", "## 青岚科技".
  /^ {0,3}#{1,6}[ \t]+\S/m,
  // Code fence.
  /^ {0,3}(?:```|~~~)/m,
  // List bullet: "- item", "* item", "+ item" (numbered lists alone are too common in prose).
  /^ {0,3}[-*+][ \t]+\S/m,
  // Table row: "| a | b |".
  /^ {0,3}\|.*\|[ \t]*$/m,
  // Link or image: [text](target).
  /!?\[[^\]\n]+\]\([^)\s]*(?:\s+"[^"\n]*")?\)/,
  // Strong emphasis: **x**, __x__.
  /(\*\*|__)(?=\S)[^\n]*?\S\1/,
  // Emphasis between spaces or punctuation: *x*, _x_ (not snake_case nor 5 * 3).
  /(?:^|[\s(（])([*_])(?=[^\s*_])[^*_\n]*[^\s*_]\1(?=$|[\s.,;:!?)。，；：！？）])/m,
  // Code span: `npm install`.
  /`[^`\n]+`/,
];

/** Whether a text (one chunk, possibly cut anywhere in a document) is written in markdown. */
export function looksLikeMarkdown(text: string): boolean {
  return MARKDOWN_SIGNALS.some((signal) => signal.test(text));
}
