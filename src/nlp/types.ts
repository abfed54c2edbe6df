/** What the offline NLP finds in a text; offsets are [start, end) character positions in it. */

export type MentionKind = "person" | "location" | "organization" | "concept";

export interface Sentence {
  text: string;
  start: number;
  end: number;
}

export interface Mention {
  /** Named mentions: the name as written (possessive and leading article dropped). Noun phrases: lemma form. */
  name: string;
  kind: MentionKind;
  /** A proper name (capitalised span, NER class) rather than a common noun phrase. */
  named: boolean;
  /**
   * A noun run or keyword of Chinese text: jieba's tags do not tell a term from a bare title
   * (首席执行官) or a generic activity (市场销售), so it serves keywords, not entities.
   */
  chineseCommonNoun?: boolean;
  /** A job title written before a person's name and kept out of it: "CEO" of "CEO Mara Okafor". */
  role?: string;
  /** Index into TextAnalysis.sentences. */
  sentence: number;
  start: number;
  end: number;
}

/** A content word (noun or verb, lemmatised where the library allows): raw material for keywords. */
export interface ContentWord {
  lemma: string;
  pos: "noun" | "verb";
  sentence: number;
}

export interface TextAnalysis {
  sentences: Sentence[];
  mentions: Mention[];
  words: ContentWord[];
  /** Salient terms by TF-IDF, best first (Chinese only; empty where no IDF table is available). */
  salient: string[];
}

export type Script = "en" | "zh" | "mixed";
