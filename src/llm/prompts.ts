import { readdirSync, readFileSync } from "node:fs";
import { extname, join, resolve } from "node:path";
import { ConfigError } from "../config-error.js";
import { packagePath } from "../util/paths.js";

const cache = new Map<string, string>();
const PLACEHOLDER = /\{([a-z_][a-z0-9_]*)\}/g;
const PROMPT_EXTENSION = ".md";

/** Prompt files from the config's `prompts` folder, by name, in place of the built-ins. */
let overrides = new Map<string, string>();

function builtInPrompt(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(packagePath("prompts", `${name}${PROMPT_EXTENSION}`), "utf8");
    cache.set(name, text);
  }
  return text;
}

/** Reads prompts/<name>.md once, or the override of that name. Prompt text lives in files so users can adapt it. */
export function loadPrompt(name: string): string {
  return overrides.get(name) ?? builtInPrompt(name);
}

/** The names of the built-in prompts (prompts/*.md without the ending). */
export function builtInPromptNames(): string[] {
  return readdirSync(packagePath("prompts"))
    .filter((file) => extname(file) === PROMPT_EXTENSION)
    .map((file) => file.slice(0, -PROMPT_EXTENSION.length))
    .sort();
}

/** The built-in text of a prompt, whatever overrides are in force (for `kgrag prompts export`). */
export function builtInPromptText(name: string): string {
  return builtInPrompt(name);
}

function placeholdersOf(text: string): Set<string> {
  return new Set([...text.matchAll(PLACEHOLDER)].map((match) => match[1] as string));
}

/** What is wrong with an override: a name no prompt has, or placeholders other than the built-in's. */
function overrideProblems(file: string, text: string, known: Set<string>): string[] {
  if (extname(file) !== PROMPT_EXTENSION || !known.has(file.slice(0, -PROMPT_EXTENSION.length))) {
    return [`${file}: no built-in prompt has this name (prompts are ${[...known].join(", ")}, each .md)`];
  }
  const expected = placeholdersOf(builtInPrompt(file.slice(0, -PROMPT_EXTENSION.length)));
  const given = placeholdersOf(text);
  const missing = [...expected].filter((p) => !given.has(p)).map((p) => `{${p}}`);
  const unknown = [...given].filter((p) => !expected.has(p)).map((p) => `{${p}}`);
  const problems: string[] = [];
  if (missing.length) problems.push(`${file}: missing placeholder ${missing.join(", ")}`);
  if (unknown.length) {
    const allowed = [...expected].map((p) => `{${p}}`).join(", ") || "none";
    problems.push(`${file}: unknown placeholder ${unknown.join(", ")} (this prompt has ${allowed})`);
  }
  return problems;
}

/**
 * Puts the prompt files of `folder` in place of the built-ins of the same name, all checked first:
 * an unknown name or a missing or unknown placeholder is a ConfigError now, not at the 500th
 * chunk. `undefined` goes back to the built-ins. The overrides hold for the whole process.
 */
export function usePromptOverrides(folder: string | undefined): void {
  if (!folder) {
    overrides = new Map();
    return;
  }
  const dir = resolve(folder);
  let files: string[];
  try {
    files = readdirSync(dir, { withFileTypes: true })
      .filter((entry) => !entry.name.startsWith("."))
      .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name));
  } catch {
    throw new ConfigError(`prompts: cannot read the prompt folder ${dir}`);
  }
  const known = new Set(builtInPromptNames());
  const loaded = new Map<string, string>();
  const problems: string[] = [];
  for (const file of files) {
    if (file.endsWith("/")) {
      problems.push(`${file}: a folder; prompt overrides are ${PROMPT_EXTENSION} files directly in ${dir}`);
      continue;
    }
    const text = readFileSync(join(dir, file), "utf8");
    const found = overrideProblems(file, text, known);
    problems.push(...found);
    if (found.length === 0) loaded.set(file.slice(0, -PROMPT_EXTENSION.length), text);
  }
  if (problems.length) {
    throw new ConfigError(`Prompt overrides in ${dir}:\n${problems.map((p) => `  ${p}`).join("\n")}`);
  }
  overrides = loaded;
}

/** Names of the prompts currently overridden. */
export function overriddenPrompts(): string[] {
  return [...overrides.keys()].sort();
}

/**
 * Fills {placeholder} slots. Every placeholder in the template must be given and every value must
 * be used, so a renamed slot fails loudly instead of sending "{entity_types}" to the model.
 */
export function renderPrompt(name: string, values: Record<string, string | number>): string {
  const template = loadPrompt(name);
  const used = new Set<string>();
  const out = template.replace(PLACEHOLDER, (_match, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`Prompt ${name}: no value for {${key}}`);
    used.add(key);
    return String(value);
  });
  const unused = Object.keys(values).filter((k) => !used.has(k));
  if (unused.length) throw new Error(`Prompt ${name}: values not used by the template: ${unused.join(", ")}`);
  return out;
}
