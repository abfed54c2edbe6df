/**
 * Speed of the offline-nlp extractor on short Wikipedia passages: the first 1,000 passages of
 * ../shared/datasets/hotpotqa-100 (chunk text = title, blank line, text), after a warm-up pass.
 * Target: under 3 ms per 100-word passage.
 * Run: npx tsx bench/offline-extractor.ts [corpus.jsonl]
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { OfflineNlpExtractor } from "../src/extraction/offline-extractor.js";

const CORPUS =
  process.argv[2] ?? new URL("../../shared/datasets/hotpotqa-100/corpus.jsonl", import.meta.url).pathname;
const PASSAGES = 1_000;
const ROUNDS = 3;

interface Passage {
  title: string;
  text: string;
}

const passages = readFileSync(CORPUS, "utf8")
  .split("\n")
  .filter((line) => line.trim())
  .slice(0, PASSAGES)
  .map((line) => JSON.parse(line) as Passage);
const words = passages.reduce((sum, p) => sum + p.text.split(/\s+/).length, 0);

const extractor = new OfflineNlpExtractor();
const run = () => {
  let entities = 0;
  let relationships = 0;
  for (const p of passages) {
    const extraction = extractor.extractText(`${p.title}\n\n${p.text}`, p.title);
    entities += extraction.entities.length;
    relationships += extraction.relationships.length;
  }
  return { entities, relationships };
};

run(); // warm-up: JIT and compromise's lazy lexicon
const wall: number[] = [];
const cpu: number[] = [];
let counts = { entities: 0, relationships: 0 };
for (let round = 0; round < ROUNDS; round++) {
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  counts = run();
  const used = process.cpuUsage(cpuStarted);
  wall.push(performance.now() - started);
  cpu.push((used.user + used.system) / 1000);
}

// CPU time is reported next to wall time: on a busy machine only the former measures our code.
function report(label: string, ms: number): string {
  const perPassage = ms / passages.length;
  const per100Words = (ms / words) * 100;
  return `${label}: ${ms.toFixed(0)} ms total, ${perPassage.toFixed(2)} ms/passage, ${per100Words.toFixed(2)} ms per 100 words`;
}
console.log(`passages: ${passages.length}, mean words: ${(words / passages.length).toFixed(1)}`);
console.log(`entities: ${counts.entities}, relationships: ${counts.relationships}`);
console.log(report(`wall, best of ${ROUNDS}`, Math.min(...wall)));
console.log(report(`cpu,  best of ${ROUNDS}`, Math.min(...cpu)));
