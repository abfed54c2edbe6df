/** Retrieval and answer scores for one question; averaged per mode by eval.ts. */

/** Titles compare width-, case- and space-insensitively, as users and datasets spell them differently. */
export function normalizeTitle(title: string): string {
  return title.normalize("NFKC").replace(/\s+/g, " ").trim().toLowerCase();
}

export interface RetrievalScores {
  /** K -> 1 when every gold passage is among the first K retrieved, else 0. */
  allGold: Record<number, number>;
  /** K -> share of the gold passages among the first K. */
  recall: Record<number, number>;
  /** 1 / rank of the first gold passage (0 when none was retrieved). */
  reciprocalRank: number;
}

/** `retrieved` are document titles in rank order, each once; `gold` the titles needed to answer. */
export function scoreRetrieval(retrieved: string[], gold: string[], ks: number[]): RetrievalScores {
  const wanted = new Set(gold.map(normalizeTitle));
  const ranks = retrieved.map(normalizeTitle);
  const allGold: Record<number, number> = {};
  const recall: Record<number, number> = {};
  for (const k of ks) {
    const top = new Set(ranks.slice(0, k));
    const found = [...wanted].filter((t) => top.has(t)).length;
    recall[k] = wanted.size ? found / wanted.size : 0;
    allGold[k] = wanted.size > 0 && found === wanted.size ? 1 : 0;
  }
  const first = ranks.findIndex((t) => wanted.has(t));
  return { allGold, recall, reciprocalRank: first < 0 ? 0 : 1 / (first + 1) };
}

/** The passages behind ranked chunks: their documents, de-duplicated in order of first appearance. */
export function documentsInRankOrder(titles: string[]): string[] {
  return [...new Set(titles)];
}

/** SQuAD answer normalisation: lower case, no punctuation, no articles, single spaces. */
export function normalizeAnswer(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, " ")
    .replace(/\b(a|an|the)\b/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

export function exactMatch(prediction: string, answers: string[]): number {
  const p = normalizeAnswer(prediction);
  return answers.some((a) => normalizeAnswer(a) === p) ? 1 : 0;
}

/**
 * 1 when the answer holds the gold answer or one of its aliases as whole words (both normalised
 * like SQuAD): the fair score for an extractive answer, which quotes whole sentences.
 */
export function answerContains(prediction: string, answers: string[]): number {
  const p = ` ${normalizeAnswer(prediction)} `;
  return answers.some((a) => {
    const gold = normalizeAnswer(a);
    return gold !== "" && p.includes(` ${gold} `);
  })
    ? 1
    : 0;
}

/** Best token-overlap F1 against any accepted answer (SQuAD/HotpotQA definition). */
export function tokenF1(prediction: string, answers: string[]): number {
  const predicted = normalizeAnswer(prediction).split(" ").filter(Boolean);
  let best = 0;
  for (const answer of answers) {
    const truth = normalizeAnswer(answer).split(" ").filter(Boolean);
    const counts = new Map<string, number>();
    for (const t of truth) counts.set(t, (counts.get(t) ?? 0) + 1);
    let common = 0;
    for (const t of predicted) {
      const left = counts.get(t) ?? 0;
      if (left > 0) {
        common += 1;
        counts.set(t, left - 1);
      }
    }
    if (common === 0) continue;
    const precision = common / predicted.length;
    const recall = common / truth.length;
    best = Math.max(best, (2 * precision * recall) / (precision + recall));
  }
  return best;
}

export function mean(values: number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}
