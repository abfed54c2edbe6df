import { acronymOf, chineseSurname, companyShortName, type NameForm } from "./names.js";

/**
 * What two names alone say about naming one thing:
 * - conflict: they cannot (Mr. vs Mrs., a possessive, two different given names);
 * - strong: the same name once titles and articles are dropped, an acronym, initials;
 * - weak: one is part of the other (a surname, a given name), which also fits two relatives;
 * - borderline: a title and surname against a given name and surname ("Mrs. Cratchit" and "Bob
 *   Cratchit"): only a model, or a person, can tell;
 * - none: nothing links them.
 */
export type NameRelation = "conflict" | "strong" | "weak" | "borderline" | "none";

export interface NameEvidence {
  relation: NameRelation;
  reason: string;
}

const NONE: NameEvidence = { relation: "none", reason: "names share no form" };

export function compareNames(a: NameForm, b: NameForm): NameEvidence {
  if (a.key === b.key) return { relation: "strong", reason: "same name" };
  if (a.possessive || b.possessive) {
    return sharesWords(a, b) ? { relation: "conflict", reason: "possessive names someone else" } : NONE;
  }
  if (a.title && b.title && a.title !== "neutral" && b.title !== "neutral" && a.title !== b.title) {
    return { relation: "conflict", reason: `titles disagree (${a.title} vs ${b.title})` };
  }
  if (a.core.length === 0 || b.core.length === 0) return NONE;
  if (a.chinese !== b.chinese) return NONE;
  return a.chinese ? compareChinese(a, b) : compareEnglish(a, b);
}

function compareEnglish(a: NameForm, b: NameForm): NameEvidence {
  if (sameWords(a.core, b.core))
    return { relation: "strong", reason: "same name without titles or articles" };
  const [short, long] = a.core.length <= b.core.length ? [a, b] : [b, a];
  if (isAcronym(short.core, long.core)) return { relation: "strong", reason: "acronym" };
  if (short.core.length === long.core.length) return compareSameLength(short.core, long.core);
  const at = indexOfRun(long.core, short.core);
  if (at < 0) return differentGivenNames(short.core, long.core) ?? NONE;
  const atEnd = at + short.core.length === long.core.length;
  if (atEnd && short.core.length === 1 && short.title && short.title !== "neutral" && !long.title) {
    return { relation: "borderline", reason: "title and surname vs a full name" };
  }
  if (atEnd) return { relation: "weak", reason: "surname or last part of the longer name" };
  if (at === 0) return { relation: "weak", reason: "given name or first part of the longer name" };
  return { relation: "weak", reason: "part of the longer name" };
}

/** "J. P. Morgan" and "John Pierpont Morgan": every word equal or an initial of the other's. */
function compareSameLength(a: string[], b: string[]): NameEvidence {
  const last = a.length - 1;
  if (a[last] !== b[last]) return NONE;
  const fits = a.every((w, i) => w === b[i] || isInitialOf(w, b[i]!) || isInitialOf(b[i]!, w));
  if (fits) return { relation: "strong", reason: "initials" };
  return { relation: "conflict", reason: "different given names" };
}

/** "Bob Cratchit" and "Tim Cratchit": the same surname after different given names. */
function differentGivenNames(a: string[], b: string[]): NameEvidence | null {
  if (a.length < 2 || b.length < 2 || a[a.length - 1] !== b[b.length - 1]) return null;
  const firstA = a[0]!;
  const firstB = b[0]!;
  if (firstA === firstB || isInitialOf(firstA, firstB) || isInitialOf(firstB, firstA)) return null;
  return { relation: "conflict", reason: "different given names" };
}

function compareChinese(a: NameForm, b: NameForm): NameEvidence {
  const coreA = a.core[0]!;
  const coreB = b.core[0]!;
  if (coreA === coreB) return { relation: "strong", reason: "same name without titles" };
  const [short, long] = coreA.length <= coreB.length ? [a, b] : [b, a];
  const shortCore = short.core[0]!;
  const longCore = long.core[0]!;
  if (companyShortName(longCore) === shortCore) {
    // Like "Northwind" and "Northwind Traders": often the firm, sometimes another one of the group.
    return { relation: "weak", reason: "company name without its company word" };
  }
  const surname = chineseSurname(longCore);
  if (surname && shortCore === surname && short.title && short.title !== "neutral") {
    return { relation: "borderline", reason: "surname and title vs a full name" };
  }
  if (surname && longCore.slice(1) === shortCore && shortCore.length >= 1) {
    return { relation: "weak", reason: "given name vs full name" };
  }
  const surnameShort = chineseSurname(shortCore);
  if (surname && surnameShort === surname && shortCore.length >= 2 && longCore.length >= 2) {
    return { relation: "conflict", reason: "different given names" };
  }
  return NONE;
}

function isAcronym(short: string[], long: string[]): boolean {
  if (short.length !== 1 || long.length < 2) return false;
  const word = short[0]!;
  return word.length >= 2 && /^\p{L}+$/u.test(word) && word === acronymOf(long);
}

function isInitialOf(initial: string, word: string): boolean {
  return initial.length === 1 && word.length > 1 && word.startsWith(initial);
}

function sameWords(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((w, i) => w === b[i]);
}

/** Where `run` occurs in `words` as consecutive words, or -1. */
function indexOfRun(words: string[], run: string[]): number {
  for (let i = 0; i + run.length <= words.length; i++) {
    if (run.every((w, j) => words[i + j] === w)) return i;
  }
  return -1;
}

function sharesWords(a: NameForm, b: NameForm): boolean {
  if (a.chinese || b.chinese) return a.key.includes(b.key) || b.key.includes(a.key);
  const words = new Set(a.core);
  return b.core.some((w) => words.has(w));
}
