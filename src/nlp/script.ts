import type { Script } from "./types.js";

const HAN_CHAR = /\p{Script=Han}/gu;
const LATIN_WORD = /\p{Script=Latin}+/gu;

function count(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}

/**
 * Which analyzer suits a text: Chinese characters against Latin words (one Chinese word is about
 * 1.5 characters). A few Latin names in Chinese text stay "zh"; a few characters glossed in
 * English text (as in "Wangliang (魍魎)") stay "en". Scripts other than these two go to "en", whose
 * capitalisation rules still find names in most alphabetic languages.
 */
export function detectScript(text: string): Script {
  const han = count(text, HAN_CHAR);
  if (han === 0) return "en";
  const latin = count(text, LATIN_WORD);
  if (latin === 0) return "zh";
  const share = hanShare(text);
  return share >= 0.8 ? "zh" : share <= 0.2 ? "en" : "mixed";
}

/** Chinese words (about 1.5 characters each) as a share of all words. */
function hanShare(text: string): number {
  const han = count(text, HAN_CHAR) / 1.5;
  return han / (han + count(text, LATIN_WORD));
}

export interface ScriptRun {
  script: "en" | "zh";
  start: number;
  end: number;
}

/** A sentence-sized piece: up to a Chinese sentence end, an English one before a space, or a line break. */
const PIECE = /[\s\S]*?(?:[。！？；]+|[.!?]+(?=\s)|\n+|$)/g;

/**
 * Cuts mixed text into runs each analyzer can take: sentence-sized pieces are classed one by one,
 * and neighbours of the same class are joined again.
 */
export function scriptRuns(text: string): ScriptRun[] {
  const runs: ScriptRun[] = [];
  for (const match of text.matchAll(PIECE)) {
    if (!match[0]) continue;
    const script = runScript(match[0]);
    const start = match.index;
    const end = start + match[0].length;
    const previous = runs[runs.length - 1];
    if (previous && previous.script === script) previous.end = end;
    else runs.push({ script, start, end });
  }
  return runs;
}

/**
 * The analyzer of one sentence-sized piece. A piece mostly in Chinese with several Latin names
 * ("公司使用Microsoft Azure OpenAI服务和GPT 4模型。") is Chinese: jieba keeps its Latin words apart,
 * while the English analyzer cannot cut Chinese and read "OpenAI服务和GPT" as one name. An English
 * sentence glossing a few characters ("Qinglan (青岚科技) was founded...") stays English.
 */
function runScript(piece: string): "en" | "zh" {
  const script = detectScript(piece);
  if (script !== "mixed") return script;
  return hanShare(piece) >= 0.5 ? "zh" : "en";
}
