/**
 * Offline answer quality on the HotpotQA development set (../shared/datasets/hotpotqa-100), on a
 * workspace already indexed by bench/hotpotqa.ts or `kgrag eval --corpus`: per mode, the share of
 * answers holding the gold answer (answerContains, as `kgrag eval` reports it), and the same on
 * the quoted passage sentences alone, without the community reports global, hybrid and mix append.
 * --data may name any set with gold answers (bench/datasets/.cache/wiki-vital-en); --range 1-50 scores
 * only those questions (1-based, inclusive), to tune on one half of a set and check on the other.
 * Run: npx tsx bench/hotpotqa-answers.ts --workspace DIR [--data DIR] [--modes naive,mix] [--range A-B] [--misses]
 */
import { join } from "node:path";
import { createKgrag } from "../src/kgrag.js";
import { answerStatements } from "../src/query/answer/answer.js";
import { answerContains, mean } from "../src/query/eval/metrics.js";
import { readEvalQuestions } from "../src/query/eval/run-eval.js";
import { QUERY_MODES, type QueryMode } from "../src/query/options.js";

const DATA = join(import.meta.dirname, "../../shared/datasets/hotpotqa-100");
const REPORTS = "\n\nFrom the community reports";

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flag = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const workspace = flag("--workspace");
  if (!workspace) throw new Error("--workspace DIR: a workspace holding the indexed HotpotQA corpus");
  const modes = (flag("--modes")?.split(",") ?? [...QUERY_MODES]) as QueryMode[];
  const kgrag = await createKgrag({ env: {}, config: { workspace } });
  try {
    const all = await readEvalQuestions(join(flag("--data") ?? DATA, "questions.jsonl"));
    const [from, to] = (flag("--range") ?? `1-${all.length}`).split("-").map(Number);
    const questions = all.slice((from ?? 1) - 1, to ?? all.length);
    for (const mode of modes) {
      const whole: number[] = [];
      const sentences: number[] = [];
      for (const q of questions) {
        const result = await kgrag.query(q.question, { mode });
        const accepted = [q.answer ?? "", ...q.aliases];
        const raw = result.answer.replace(/\[\d+\]/g, "");
        // Without the fixed lines: the label's "no LLM" would answer every yes/no question "no".
        const answer = answerStatements(raw);
        const quoted = answerStatements(raw.split(REPORTS)[0] ?? "");
        whole.push(answerContains(answer, accepted));
        sentences.push(answerContains(quoted, accepted));
        if (args.includes("--misses") && sentences.at(-1) === 0)
          console.log(`miss [${mode}] ${q.question} -> ${q.answer}\n${quoted}\n`);
      }
      console.log(
        `${mode}: answer contains ${mean(whole).toFixed(2)}, quoted sentences alone ${mean(sentences).toFixed(2)}`,
      );
    }
  } finally {
    await kgrag.close();
  }
}

await main();
