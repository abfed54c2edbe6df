/**
 * Offline indexing throughput on ~6,000 short passages: the hotpotqa-100 corpus (994 passages)
 * copied six times under new ids. Run: npx tsx bench/index-offline.ts [copies]
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKgrag } from "../src/kgrag.js";
import type { SourceDocument } from "../src/types.js";

const corpusPath = join(import.meta.dirname, "../../shared/datasets/hotpotqa-100/corpus.jsonl");
if (!existsSync(corpusPath)) {
  console.error(`Needs ${corpusPath} (the shared datasets folder beside the project).`);
  process.exit(2);
}
const copies = Number(process.argv[2] ?? 6);
const passages = readFileSync(corpusPath, "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as { id: string; title: string; text: string });
const docs: SourceDocument[] = [];
for (let c = 0; c < copies; c++) {
  for (const p of passages) {
    docs.push({
      id: `${p.id}-${c}`,
      title: p.title,
      path: null,
      metadata: {},
      text: `${p.title}\n\n${p.text}`,
    });
  }
}

const root = mkdtempSync(join(tmpdir(), "kgrag-bench-offline-"));
const kgrag = await createKgrag({ env: {}, config: { workspace: join(root, "ws") } });
const started = performance.now();
const cpuBefore = process.cpuUsage();
const summary = await kgrag.index(docs);
const elapsed = performance.now() - started;
// CPU time is steadier than wall time when other processes share the machine.
const cpu = process.cpuUsage(cpuBefore);
await kgrag.close();
rmSync(root, { recursive: true, force: true });
console.log(
  JSON.stringify(
    {
      passages: docs.length,
      elapsedS: +(elapsed / 1000).toFixed(1),
      passagesPerS: Math.round(docs.length / (elapsed / 1000)),
      cpuUserS: +(cpu.user / 1e6).toFixed(1),
      cpuSystemS: +(cpu.system / 1e6).toFixed(1),
      chunks: summary.chunks,
      entities: summary.entities,
      relationships: summary.relationships,
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    },
    null,
    2,
  ),
);
