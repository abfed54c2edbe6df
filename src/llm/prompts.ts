import { readFileSync } from "node:fs";
import { packagePath } from "../util/paths.js";

const cache = new Map<string, string>();

/** Reads prompts/<name>.md once. Prompt text lives in files so users can read and adapt it. */
export function loadPrompt(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(packagePath("prompts", `${name}.md`), "utf8");
    cache.set(name, text);
  }
  return text;
}

/**
 * Fills {placeholder} slots. Every placeholder in the template must be given and every value must
 * be used, so a renamed slot fails loudly instead of sending "{entity_types}" to the model.
 */
export function renderPrompt(name: string, values: Record<string, string | number>): string {
  const template = loadPrompt(name);
  const used = new Set<string>();
  const out = template.replace(/\{([a-z_][a-z0-9_]*)\}/g, (_match, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`Prompt ${name}: no value for {${key}}`);
    used.add(key);
    return String(value);
  });
  const unused = Object.keys(values).filter((k) => !used.has(k));
  if (unused.length) throw new Error(`Prompt ${name}: values not used by the template: ${unused.join(", ")}`);
  return out;
}
