import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { z } from "zod";

export type Compromise = typeof import("compromise/two").default;

const require = createRequire(import.meta.url);

/** Where the bundled CLI keeps compromise ready-built (scripts/bundle-compromise.mjs); absent in sources. */
const BUNDLED_COMPROMISE = new URL("./compromise/", import.meta.url);

const SavedModelSchema = z.object({
  model: z.record(z.string(), z.unknown()),
  /** Where the model held regular expressions, which JSON cannot: restored after parsing. */
  regexps: z.array(z.object({ path: z.array(z.string()), source: z.string(), flags: z.string() })),
});

interface CompromiseModule {
  default: Compromise;
}

/**
 * compromise as the package ships it, or, when `dir` holds the bundled CLI's ready-built copy, a
 * build whose pre-tagger model is empty with the package's whole model restored into it from JSON:
 * the same model, without unpacking, inflecting and merging its lexicon on every load (about three
 * quarters of compromise's load, which every query pays for to tag its question). Synchronous, as
 * the analysers that call it are.
 */
export function loadCompromise(dir: URL = BUNDLED_COMPROMISE): Compromise {
  const modelFile = new URL("model.json", dir);
  if (!existsSync(modelFile)) return require("compromise/two") as Compromise;
  const nlp = (require(fileURLToPath(new URL("two.cjs", dir))) as CompromiseModule).default;
  const saved = SavedModelSchema.parse(JSON.parse(readFileSync(modelFile, "utf8")));
  for (const { path, source, flags } of saved.regexps) setAt(saved.model, path, new RegExp(source, flags));
  // Whole parts replaced, not merged: the empty build's model holds only what the saved one holds too.
  Object.assign(nlp.model(), saved.model);
  return nlp;
}

function setAt(root: Record<string, unknown>, path: string[], value: unknown): void {
  const last = path.at(-1);
  let node: unknown = root;
  for (const key of path.slice(0, -1)) node = (node as Record<string, unknown>)[key];
  if (last === undefined || node === null || typeof node !== "object") {
    throw new Error(`The saved compromise model has no place for a regular expression at ${path.join(".")}`);
  }
  (node as Record<string, unknown>)[last] = value;
}
