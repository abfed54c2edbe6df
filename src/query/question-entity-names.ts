import { entityKey } from "../merge/keys.js";
import type { GraphStore } from "../storage/graph-store.js";

const HAN_RUN = /\p{Script=Han}+/gu;

export interface QuestionNameLookup {
  /** Longest entity name looked for, in Han characters. */
  maxChars: number;
  /** Most candidate spans looked up for one question (a long question is read from its start). */
  maxCandidates: number;
}

/**
 * Names of the workspace's entities that a Chinese question spells out, such as 青岚科技 in
 * 青岚科技是谁创立的？, so the keyword tagger keeps them whole where jieba would cut them into
 * common words. Every span of 2..maxChars Han characters is looked up by key in one store read
 * (labels are cached in memory by the SQLite store), which works the same on every store and costs
 * nothing for a question without Han characters.
 */
export async function entityNamesInQuestion(
  store: GraphStore,
  question: string,
  lookup: QuestionNameLookup,
): Promise<string[]> {
  const keys = hanSpanKeys(question, lookup);
  if (keys.length === 0) return [];
  const labels = store.entityLabels
    ? await store.entityLabels(keys)
    : (await store.getEntities(keys)).map(({ key, name, type }) => ({ key, name, type }));
  return [...new Set(labels.map((label) => label.name))].sort(
    (a, b) => b.length - a.length || (a < b ? -1 : 1),
  );
}

/** Keys of the question's Han spans of 2..maxChars characters, at most maxCandidates of them. */
export function hanSpanKeys(question: string, { maxChars, maxCandidates }: QuestionNameLookup): string[] {
  const keys = new Set<string>();
  for (const match of question.matchAll(HAN_RUN)) {
    const run = [...match[0]];
    for (let start = 0; start < run.length - 1; start++) {
      for (let end = start + 2; end <= Math.min(run.length, start + maxChars); end++) {
        if (keys.size >= maxCandidates) return [...keys];
        keys.add(entityKey(run.slice(start, end).join("")));
      }
    }
  }
  return [...keys];
}
