import { entityKey } from "../merge/keys.js";
import { COMPANY_WORDS, SURNAMES } from "../nlp/chinese-words.js";

/** What a title says about the person it names; "neutral" titles (Dr., 教授) say nothing. */
export type Gender = "male" | "female" | "neutral";

/**
 * A name taken apart for comparison: titles and articles dropped, punctuation stripped, and the
 * markers that rule a merge out (a title's gender, a possessive) kept aside.
 */
export interface NameForm {
  key: string;
  /** Lower-case words of the name without titles, articles and punctuation (one item for Chinese). */
  core: string[];
  title: Gender | null;
  /** "Scrooge's nephew" names someone else than Scrooge. */
  possessive: boolean;
  /** Written in Han characters: compared by surname and given name instead of words. */
  chinese: boolean;
}

const ENGLISH_TITLES: Record<string, Gender> = {
  mr: "male",
  mister: "male",
  sir: "male",
  lord: "male",
  master: "male",
  mrs: "female",
  ms: "female",
  miss: "female",
  madam: "female",
  madame: "female",
  lady: "female",
  dame: "female",
  dr: "neutral",
  doctor: "neutral",
  prof: "neutral",
  professor: "neutral",
};

const ARTICLES = new Set(["the", "a", "an"]);

/** Longest first, so 老先生 is not read as 先生 after 老. */
const CHINESE_TITLES: [string, Gender][] = [
  ["老先生", "male"],
  ["先生", "male"],
  ["女士", "female"],
  ["小姐", "female"],
  ["太太", "female"],
  ["夫人", "female"],
  ["教授", "neutral"],
  ["博士", "neutral"],
  ["老师", "neutral"],
  ["医生", "neutral"],
];

const HAN_ONLY = /^[\p{Script=Han}·•・]+$/u;
const POSSESSIVE = /\p{L}'s?\s+\S|\p{L}s'\s+\S|的\S/u;

export function analyzeName(name: string): NameForm {
  const key = entityKey(name);
  const compact = key.replace(/\s+/g, "");
  if (HAN_ONLY.test(compact)) return chineseForm(key, compact);
  return englishForm(key);
}

function englishForm(key: string): NameForm {
  const possessive = POSSESSIVE.test(key);
  let title: Gender | null = null;
  const core: string[] = [];
  const words = key
    .split(/[\s,]+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ""))
    .filter(Boolean);
  words.forEach((word, i) => {
    const bare = word.replace(/\.$/, "");
    const gender = ENGLISH_TITLES[bare];
    // A title counts only before the name ("Mr. Scrooge"), never as a word of it ("The Lord Mayor"'s "mayor").
    if (gender && core.length === 0 && i < words.length - 1) {
      title = title ?? gender;
      return;
    }
    if (ARTICLES.has(bare) && core.length === 0 && i < words.length - 1) return;
    core.push(bare.replace(/'s$|'$/u, "").replace(/[.']/g, ""));
  });
  return { key, core: core.filter(Boolean), title, possessive, chinese: false };
}

function chineseForm(key: string, compact: string): NameForm {
  let rest = compact.replace(/[·•・]/g, "");
  let title: Gender | null = null;
  for (const [suffix, gender] of CHINESE_TITLES) {
    if (rest.length > suffix.length && rest.endsWith(suffix)) {
      rest = rest.slice(0, -suffix.length);
      title = gender;
      break;
    }
  }
  return { key, core: [rest], title, possessive: POSSESSIVE.test(compact), chinese: true };
}

/** The surname of a Chinese name of two to four characters, when its first character is a common one. */
export function chineseSurname(core: string): string | null {
  const first = core[0];
  return first && core.length <= 4 && SURNAMES.has(first) ? first : null;
}

/** A Chinese company's name without the company word that ends it (星河动力公司 → 星河动力), or null. */
export function companyShortName(core: string): string | null {
  const word = COMPANY_WORDS.find((w) => core.length >= w.length + 2 && core.endsWith(w));
  return word ? core.slice(0, -word.length) : null;
}

/** Words too small to make an acronym of ("Bank of America" is BOA, "AT&T" aside). */
const ACRONYM_SKIP = new Set(["of", "and", "for", "the", "in", "on", "at", "to", "&"]);

export function acronymOf(core: string[]): string {
  return core
    .filter((w) => !ACRONYM_SKIP.has(w))
    .map((w) => w[0] ?? "")
    .join("");
}

/** Keys that group names which might name one thing, so only those are compared (blocking). */
export function blockingKeys(form: NameForm): string[] {
  if (form.chinese) {
    const core = form.core[0] ?? "";
    const surname = chineseSurname(core);
    const keys = [`zh:${core}`];
    if (surname && core.length > 1) keys.push(`zh:${core.slice(1)}`, `zh-surname:${surname}`);
    if (core.length === 1) keys.push(`zh-surname:${core}`);
    const short = companyShortName(core);
    if (short) keys.push(`zh:${short}`);
    return keys;
  }
  const keys = form.core.map((w) => `w:${w}`);
  if (form.core.length >= 2) keys.push(`w:${acronymOf(form.core)}`);
  return keys;
}

/** A name written with a capital letter, or in Han characters. */
export function isProperName(name: string): boolean {
  return /\p{Lu}|\p{Script=Han}/u.test(name);
}
