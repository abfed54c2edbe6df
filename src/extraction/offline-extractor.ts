import type { OfflineExtractionConfig } from "../config.js";
import { entityKey } from "../merge/keys.js";
import { analyzeText } from "../nlp/analyze.js";
import { analysisReading } from "../nlp/markdown-prose.js";
import { opensWithReference } from "../nlp/reference-opening.js";
import type { ChunkRecord, ExtractedEntity, Extraction } from "../types.js";
import type { ExtractionOutcome, Extractor } from "./extractor.js";
import { OFFLINE_EXTRACTION_DEFAULTS } from "./offline-defaults.js";
import { type ChunkEntity, chunkEntities, headingSentences, isInformative } from "./offline-entities.js";
import { markPeopleByPronoun, personalPronounReferents } from "./offline-pronouns.js";
import { cooccurrences } from "./offline-relationships.js";
import { type ChunkSentences, prepareSentences } from "./offline-text.js";
import { titleEntityName, titleNamedIn } from "./offline-title.js";

/** Config `extraction.offline`, and how markdown is read. */
export interface OfflineExtractorOptions extends Partial<OfflineExtractionConfig> {
  /**
   * Read chunks that show markdown syntax as prose (headings and list items their own sentences,
   * no markers in descriptions). Text without markdown syntax is read as written either way.
   */
  readMarkdown?: boolean;
}

const DEFAULTS: Required<OfflineExtractorOptions> = {
  ...OFFLINE_EXTRACTION_DEFAULTS,
  readMarkdown: true,
};

/**
 * The built-in extractor that needs no model, in the spirit of GraphRAG's "fast" indexing: named
 * entities and noun phrases become entities, described by the sentences they appear in;
 * co-occurrence in a sentence (or with the document's title) becomes a relationship. English is
 * analysed with compromise, Chinese with jieba. Deterministic: the same chunk gives the same result.
 */
export class OfflineNlpExtractor implements Extractor {
  readonly kind = "offline-nlp" as const;
  private readonly options: Required<OfflineExtractorOptions>;

  constructor(options: OfflineExtractorOptions = {}) {
    this.options = { ...DEFAULTS, ...options };
  }

  async extract(chunk: ChunkRecord, context: { title: string }): Promise<ExtractionOutcome> {
    return { ok: true, extraction: this.extractText(chunk.text, context.title, chunk.start > 0) };
  }

  /**
   * The synchronous core, also used by the benchmark. `startsInside`: the text is cut from inside
   * its document (a chunk after the first), so it may open in the middle of a sentence.
   */
  extractText(text: string, title: string, startsInside = false): Extraction {
    // The chunk itself stays as written: citations point at exact spans of the source document.
    const titleName = titleEntityName(title);
    const reading = this.options.readMarkdown ? analysisReading(text) : { prose: text, headings: [] };
    const analysis = analyzeText(reading.prose, titleName ? [titleName] : []);
    const headings = new Set(
      [title, titleName ?? "", ...reading.headings].map(entityKey).filter((key) => key !== ""),
    );
    const headingLines = headingSentences(reading.prose, analysis, headings);
    // A title names an entity only when the passage names it too (in a sentence, not its heading):
    // "Lilu (mythology)" does, a document called "Quarterly Report" does not.
    const runningText = analysis.sentences.filter((_, i) => !headingLines.has(i)).map((s) => s.text);
    const subject =
      titleName && (titleNamedIn(titleName, runningText) || (!startsInside && refersBack(runningText[0])))
        ? titleName
        : null;
    const entities = chunkEntities(analysis, subject, this.options.maxEntitiesPerChunk, headingLines);
    const sentences = prepareSentences(analysis, startsInside);
    markPeopleByPronoun(analysis, entities);
    const referents = personalPronounReferents(analysis, entities);
    return {
      entities: entities.map((entity) =>
        this.describe(entity, describingSentences(entity, referents), sentences, headings),
      ),
      relationships: cooccurrences(sentences, entities, this.options.maxRelationshipsPerChunk),
    };
  }

  /** `own`: the sentences about the entity (see describingSentences), in text order. */
  private describe(
    entity: ChunkEntity,
    own: number[],
    sentences: ChunkSentences,
    headings: ReadonlySet<string>,
  ): ExtractedEntity {
    const informative = (s: number) => isInformative(sentences.text[s]!, entity, headings);
    let chosen = own.filter(informative);
    // The title entity may never be written out in the text: the passage's opening is about it.
    if (chosen.length === 0 && entity.isTitle) chosen = sentences.text.map((_, s) => s).filter(informative);
    if (chosen.length === 0) chosen = own;
    const quoted = withoutPartialOpening(chosen, sentences)
      .slice(0, this.options.sentencesPerEntity)
      .map((s) => sentences.clipped[s]);
    // The job title kept out of a person's name ("CEO Mara Okafor") opens the description.
    const roles = entity.roles.length > 0 ? [`${entity.name}, ${entity.roles.join(", ")}.`] : [];
    const description = [...roles, ...quoted].join(" ");
    return { name: entity.name, type: entity.kind, description: description || entity.name };
  }
}

/**
 * The sentences that describe an entity: those naming it, except that a sentence opening with he,
 * she (他, 她) speaks of a person. It describes the person it refers to, even unnamed in it; for an
 * organisation, place or term it names ("She joined the Harbor Authority") it is a last resort. The
 * title entity keeps every sentence naming it: the passage is about it.
 */
function describingSentences(entity: ChunkEntity, referents: ReadonlyMap<number, string | null>): number[] {
  if (entity.kind === "person") {
    const referring = [...referents].filter(([, key]) => key === entity.key).map(([s]) => s);
    return [...new Set([...entity.sentences, ...referring])].sort((a, b) => a - b);
  }
  if (entity.isTitle) return entity.sentences;
  const own = entity.sentences.filter((s) => !referents.has(s));
  return own.length > 0 ? own : entity.sentences;
}

/**
 * A document's text that opens with a pronoun or a definite reference ("It was founded in 1987
 * by...", "他生于...") is about what its title names, though it never writes the name out.
 */
function refersBack(firstSentence: string | undefined): boolean {
  return firstSentence !== undefined && opensWithReference(firstSentence.trimStart());
}

/**
 * A chunk's opening that continues a sentence of the chunk before is quoted only when the entity
 * has nothing else (marked with "…"): the chunk before, which overlaps this one, quotes it whole.
 */
function withoutPartialOpening(chosen: number[], sentences: ChunkSentences): number[] {
  if (!sentences.partialOpening || chosen[0] !== 0 || chosen.length === 1) return chosen;
  return chosen.slice(1);
}
