import { findNames, nameEvidence } from "./english-names.js";
import { contentWords, findPhrases } from "./english-phrases.js";
import { tagEnglish } from "./english-tokens.js";
import { unwrapLines } from "./line-breaks.js";
import type { Mention, TextAnalysis } from "./types.js";

/**
 * English analysis with compromise: sentences, proper names classed as person, location,
 * organization or (other) concept, common noun phrases as concepts, and content words. Offsets are
 * positions in `text`; `reading` is `text` with its wrapping line breaks made spaces. `knownNames`
 * (the document's title) keep their first word where it opens a sentence ("General Mills").
 */
export function analyzeEnglish(
  text: string,
  reading = unwrapLines(text),
  knownNames: readonly string[] = [],
): TextAnalysis {
  const tagged = tagEnglish(reading);
  const evidence = nameEvidence(
    tagged.map((s) => s.tokens),
    knownNames,
  );
  const analysis: TextAnalysis = { sentences: [], mentions: [], words: [], salient: [] };
  tagged.forEach(({ tokens, start, end }, sentence) => {
    analysis.sentences.push({ text: text.slice(start, end), start, end });
    const inName = new Set<number>();
    for (const span of findNames(tokens, text, evidence)) {
      // A job title before the name is no phrase of its own either, as when it was part of the name.
      for (let k = span.role?.first ?? span.first; k <= span.last; k++) inName.add(k);
      const mention: Mention = {
        name: span.name,
        kind: span.kind,
        named: !span.demonym,
        sentence,
        start: tokens[span.first]!.start,
        end: tokens[span.last]!.end,
        ...(span.role ? { role: span.role.text } : {}),
      };
      analysis.mentions.push(mention);
    }
    for (const phrase of findPhrases(tokens, inName)) {
      const start = tokens[phrase.first]!.start;
      const end = tokens[phrase.last]!.end;
      analysis.mentions.push({ name: phrase.lemma, kind: "concept", named: false, sentence, start, end });
    }
    analysis.words.push(...contentWords(tokens, sentence, inName));
  });
  analysis.mentions.sort((a, b) => a.start - b.start);
  return analysis;
}
