/**
 * The titles kgrag gives documents that have none: the file name ("zh.txt", see titleFromFileName)
 * or the .jsonl line ("passages.jsonl line 5"). They name a file, not a subject.
 */
const FILE_NAME = /\.(txt|md|markdown|pdf|docx?|html?|jsonl?|csv|rtf)(\s+line\s+\d+)?$/i;

/**
 * The entity a document title names, or null when the title is only a file name or a path.
 * Wikipedia-style qualifiers are dropped ("Lilu (mythology)" → "Lilu") because passages write the
 * bare name; so are a leading English article and a final dot ("Brewing Co."), as the name finder
 * drops them in running text.
 */
export function titleEntityName(title: string): string | null {
  const trimmed = title.replace(/\s+/g, " ").trim();
  if (!trimmed || FILE_NAME.test(trimmed) || /[\\/]/.test(trimmed)) return null;
  const name = trimmed
    .replace(/\s*[(（][^()（）]*[)）]$/, "")
    .replace(/^(the|a|an)\s+(?=\p{Lu})/iu, "")
    .replace(/\.$/, "")
    .trim();
  return name || trimmed;
}
