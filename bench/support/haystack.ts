import { existsSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * The HotpotQA-100 corpus (994 passages) scaled up with altered copies: copy c rotates the vowels
 * of every capitalised word by c places, so each copy brings its own entities and relationships.
 * The copies share every lower-case word with the originals: distractors, not a second dataset.
 */
/** Beside the kgrag folder (../shared), or two levels up from a git worktree under wt/. */
export const HOTPOTQA =
  ["../../../shared/datasets/hotpotqa-100", "../../../../shared/datasets/hotpotqa-100"]
    .map((relative) => join(import.meta.dirname, relative))
    .find((path) => existsSync(path)) ?? join(import.meta.dirname, "../../../shared/datasets/hotpotqa-100");
const VOWELS = "aeiou";

export function alter(text: string, copy: number): string {
  if (copy === 0) return text;
  return text.replace(/\b[A-Z][a-z]+/g, (word) =>
    word.replace(/[aeiou]/g, (v) => VOWELS[(VOWELS.indexOf(v) + copy) % VOWELS.length] as string),
  );
}

/** Writes (once) and returns the path of the corpus with `copies` versions of every passage. */
export async function scaledCorpus(dir: string, copies: number): Promise<string> {
  if (copies === 1) return join(HOTPOTQA, "corpus.jsonl");
  const path = join(dir, `corpus-x${copies}.jsonl`);
  if (existsSync(path)) return path;
  const lines = readFileSync(join(HOTPOTQA, "corpus.jsonl"), "utf8").split("\n").filter(Boolean);
  const out: string[] = [];
  for (let copy = 0; copy < copies; copy++) {
    for (const line of lines) {
      const p = JSON.parse(line) as { id: string; title: string; text: string };
      out.push(
        JSON.stringify({ id: `${p.id}-v${copy}`, title: alter(p.title, copy), text: alter(p.text, copy) }),
      );
    }
  }
  await writeFile(path, `${out.join("\n")}\n`);
  return path;
}

/**
 * Writes (once) and returns a corpus of the first `documents` passages, altered as a copy would be,
 * so a warm-up run shares no text (and no entity) with the measured corpus.
 */
export async function warmUpCorpus(dir: string, documents: number): Promise<string> {
  const path = join(dir, `warm-up-${documents}.jsonl`);
  if (existsSync(path)) return path;
  const lines = readFileSync(join(HOTPOTQA, "corpus.jsonl"), "utf8").split("\n").filter(Boolean);
  const out = lines.slice(0, documents).map((line) => {
    const p = JSON.parse(line) as { id: string; title: string; text: string };
    return JSON.stringify({ id: `${p.id}-warm`, title: alter(p.title, 1), text: alter(p.text, 1) });
  });
  await writeFile(path, `${out.join("\n")}\n`);
  return path;
}

/** The development questions, each followed by its altered twin, cut at `limit`. */
export function latencyQuestions(limit: number): string[] {
  return readFileSync(join(HOTPOTQA, "questions.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { question: string }).question)
    .flatMap((q) => [q, alter(q, 3)])
    .slice(0, limit);
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
