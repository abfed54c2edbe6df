import { analyzeChinese } from "./chinese.js";
import { analyzeEnglish } from "./english.js";
import { unwrapLines } from "./line-breaks.js";
import { detectScript, scriptRuns } from "./script.js";
import type { TextAnalysis } from "./types.js";

/**
 * Analyses English, Chinese or mixed text: mixed text is cut into runs of one script, each run goes
 * to its analyzer, and the results are joined with offsets into the whole text. Which line breaks
 * only wrap a sentence is decided once, on the whole text. `knownNames` (such as the name the
 * document's title gives) are kept whole where jieba would cut them into words, and keep their
 * first word where an English sentence opens with them.
 */
export function analyzeText(text: string, knownNames: readonly string[] = []): TextAnalysis {
  const reading = unwrapLines(text);
  const script = detectScript(text);
  if (script === "en") return analyzeEnglish(text, reading, knownNames);
  if (script === "zh") return analyzeChinese(text, reading, knownNames);
  const joined: TextAnalysis = { sentences: [], mentions: [], words: [], salient: [] };
  for (const run of scriptRuns(reading)) {
    const part = text.slice(run.start, run.end);
    const partReading = reading.slice(run.start, run.end);
    const analysis =
      run.script === "zh"
        ? analyzeChinese(part, partReading, knownNames)
        : analyzeEnglish(part, partReading, knownNames);
    appendShifted(joined, analysis, run.start);
  }
  return joined;
}

function appendShifted(into: TextAnalysis, part: TextAnalysis, offset: number): void {
  const base = into.sentences.length;
  for (const s of part.sentences) into.sentences.push({ ...s, start: s.start + offset, end: s.end + offset });
  for (const m of part.mentions) {
    into.mentions.push({ ...m, sentence: m.sentence + base, start: m.start + offset, end: m.end + offset });
  }
  for (const w of part.words) into.words.push({ ...w, sentence: w.sentence + base });
  into.salient.push(...part.salient.filter((term) => !into.salient.includes(term)));
}
