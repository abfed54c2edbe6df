import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Compromise, loadCompromise } from "../../src/nlp/compromise.js";

const exec = promisify(execFile);
const require = createRequire(import.meta.url);
const ROOT = join(import.meta.dirname, "..", "..");
const CORPUS = join(ROOT, "samples", "corpus");

/** The demo's English documents plus text that exercises the regex, suffix and number patterns. */
function englishTexts(): string[] {
  const documents = readdirSync(CORPUS)
    .filter((name) => /\.(md|txt)$/.test(name))
    .map((name) => readFileSync(join(CORPUS, name), "utf8"))
    .filter((text) => /[a-z]{4}/.test(text));
  return [
    ...documents,
    "Dr. Okonkwo's 3rd book sold 1,200,000 copies in Q3 2021 (about $4.5m); email jo@example.org or see https://example.org #nlp :)",
    "The Brewing Co. hadn't shipped the reorganised, well-documented widgets since Tuesday, 4 March 1998, at 5pm.",
  ];
}

/** What kgrag reads from compromise: tags (lexicon and pre-tagger, and the full tagger), lemmas, word lists. */
function readings(nlp: Compromise, text: string): unknown {
  const readings = {
    preTagged: nlp.tokenize(text).compute(["lexicon", "preTagger"]).json({ offset: true }),
    tagged: nlp(text).json(),
  };
  // Term ids count the terms each instance has made so far: not part of the reading.
  return JSON.parse(JSON.stringify(readings, (key, value: unknown) => (key === "id" ? undefined : value)));
}

interface Transforms {
  two: {
    transform: {
      noun: { toSingular(word: string, model: object): string };
      verb: { toInfinitive(word: string, model: object, tense: string): string };
    };
  };
}

function lemmas(nlp: Compromise, word: string): string[] {
  const { noun, verb } = (nlp.methods() as Transforms).two.transform;
  const model = nlp.model();
  return [
    noun.toSingular(word, model),
    ...["PastTense", "Participle", "Gerund", "PresentTense"].map((tense) =>
      verb.toInfinitive(word, model, tense),
    ),
  ];
}

function countRegexps(value: unknown): number {
  if (value instanceof RegExp) return 1;
  if (value === null || typeof value !== "object") return 0;
  return Object.values(value).reduce((sum: number, child) => sum + countRegexps(child), 0);
}

describe("compromise ready-built for the bundled CLI (scripts/bundle-compromise.mjs)", () => {
  const dir = mkdtempSync(join(tmpdir(), "kgrag-compromise-"));
  let bundled: Compromise;
  let shipped: Compromise;

  beforeAll(async () => {
    await exec(process.execPath, [join(ROOT, "scripts", "bundle-compromise.mjs"), dir], { cwd: ROOT });
    bundled = loadCompromise(pathToFileURL(join(dir, "compromise/")));
    shipped = loadCompromise(pathToFileURL(join(dir, "absent/")));
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is a separate build holding the package's whole model, regular expressions included", () => {
    expect(shipped).toBe(require("compromise/two"));
    expect(bundled).not.toBe(shipped);
    expect(bundled.model()).toEqual(shipped.model());
    expect(countRegexps(bundled.model())).toBe(countRegexps(shipped.model()));
    expect(countRegexps(bundled.model())).toBeGreaterThan(50);
  });

  it("tags, inflects and lemmatises exactly as the package does", () => {
    for (const text of englishTexts()) expect(readings(bundled, text)).toEqual(readings(shipped, text));
    // The inflection rules kgrag calls (english-tokens singular and infinitive) read the model.
    const words = ["companies", "geese", "analyses", "founded", "went", "given", "running", "studies"];
    expect(words.map((word) => lemmas(bundled, word))).toEqual(words.map((word) => lemmas(shipped, word)));
  });
});
