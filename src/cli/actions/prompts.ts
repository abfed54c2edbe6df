import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { builtInPromptNames, builtInPromptText } from "../../llm/prompts.js";
import { UsageError } from "../usage-error.js";

/** `kgrag prompts export DIR`: every built-in prompt as DIR/<name>.md, none overwritten without --force. */
export async function exportPromptsAction(dir: string, opts: { force?: boolean }): Promise<void> {
  const target = resolve(dir);
  const names = builtInPromptNames();
  const existing = names.filter((name) => existsSync(join(target, `${name}.md`)));
  if (existing.length && !opts.force) {
    throw new UsageError(`${target} already holds ${existing.map((n) => `${n}.md`).join(", ")}; use --force`);
  }
  mkdirSync(target, { recursive: true });
  for (const name of names) writeFileSync(join(target, `${name}.md`), builtInPromptText(name));
  process.stdout.write(
    `Wrote ${names.length} prompts to ${target}. Point "prompts" in kgrag.config.json at it, edit a file, ` +
      "and delete the ones you keep as they are: a file there replaces the built-in prompt of its name.\n",
  );
}
