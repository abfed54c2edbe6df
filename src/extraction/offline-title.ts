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
