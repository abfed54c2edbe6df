import { createKgrag } from "./src/kgrag.js";
import { readFileSync } from "node:fs";
const k = await createKgrag({ env: {}, config: { workspace: "/tmp/kgrag-query-hotpot" } });
const qs = readFileSync("/work/shared/datasets/hotpotqa-100/questions.jsonl", "utf8").split("\n").filter(Boolean).map(l => JSON.parse(l));
let shown = 0;
for (const q of qs) {
  const r = await k.query(q.question, { mode: "local", contextOnly: true });
  const titles = [...new Set(r.references.map(x => x.title.toLowerCase()))];
  const ranks = q.gold_titles.map((g: string) => titles.indexOf(g.toLowerCase()) + 1);
  if (ranks.every((x: number) => x > 0 && x <= 8)) continue;
  if (shown++ > 16) break;
  console.log(`\n[${q.type}] ${q.question}\n gold=${q.gold_titles.join(" / ")} ranks=${ranks.join(",")}`);
  console.log(" low:", JSON.stringify(r.keywords.low));
  console.log(" ents:", r.context.entities.slice(0, 8).map(e => `${e.name}:${e.score.toFixed(3)}`).join(" | "));
  console.log(" top:", titles.slice(0, 8).join(" | "));
}
await k.close();
