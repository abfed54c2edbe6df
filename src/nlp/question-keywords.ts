import { entityKey } from "../merge/keys.js";
import { analyzeText } from "./analyze.js";

export interface QuestionKeywords {
  /** Theme words: the question's content nouns and verbs, lemmatised ("director", "direct"). */
  high: string[];
  /** What the question names: named entities first, then noun phrases. */
  low: string[];
}

/**
 * Offline query keywords, the counterpart of the LLM "keywords" stage: low-level keywords find
 * entities by name, high-level ones find relationships by theme. A question with neither (e.g.
 * only stopwords) is its own low-level keyword. `knownNames` (entity names the question spells
 * out) are kept whole where the Chinese segmenter would cut them into words.
 */
export function questionKeywords(question: string, knownNames: readonly string[] = []): QuestionKeywords {
  const analysis = analyzeText(question, knownNames);
  const named = analysis.mentions.filter((m) => m.named).map((m) => m.name);
  const phrases = analysis.mentions.filter((m) => !m.named).map((m) => m.name);
  const low = unique([...named, ...phrases]);
  const high = unique(analysis.words.map((w) => w.lemma));
  if (low.length === 0 && high.length === 0) {
    const whole = question.trim();
    return { high: [], low: whole ? [whole] : [] };
  }
  return { high, low };
}

function unique(values: string[]): string[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = entityKey(value);
    if (!key || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
