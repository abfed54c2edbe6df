import { readFileSync } from "node:fs";
import { citedSources, communitySourceLine } from "../../query/result-text.js";
import { packagePath } from "../../util/paths.js";
import type { OpenKgrag } from "../open.js";

const MODES = ["naive", "local", "global", "hybrid", "mix"] as const;

/** `kgrag demo`: indexes the bundled samples (if needed) and answers their questions in every mode. */
export async function demoAction(
  open: OpenKgrag,
  opts: { workspace: string; questions: string },
): Promise<void> {
  const kgrag = await open({ ...opts, create: true });
  try {
    const summary = await kgrag.index([packagePath("samples", "corpus")]);
    const out = process.stdout;
    out.write(
      `Indexed the samples: ${summary.documents} documents, ${summary.chunks} chunks, ` +
        `${summary.entities} entities, ${summary.relationships} relationships ` +
        `(${summary.added.length} new, ${summary.unchanged.length} already indexed).\n`,
    );
    const top = (await kgrag.services.store.listEntities())
      .map((e) => e.name)
      .slice(0, 12)
      .join(", ");
    out.write(`Some entities: ${top}\n`);
    const communities = await kgrag.services.store.listCommunities();
    out.write(`Communities: ${communities.length}\n`);
    for (const { question } of sampleQuestions().slice(0, Number(opts.questions))) {
      out.write(`\n=== ${question}\n`);
      for (const mode of MODES) {
        const result = await kgrag.query(question, { mode });
        out.write(`\n[${mode}] ${result.answer.trim()}\n`);
        // The passages and reports ([C:<id>]) the answer cites, so every marker in it resolves.
        const sources = citedSources(result);
        for (const ref of sources.cited ? sources.references : sources.references.slice(0, 3)) {
          out.write(`  [${ref.n}] ${ref.title} (${ref.docId}, chars ${ref.start}-${ref.end})\n`);
        }
        for (const community of sources.communities) out.write(`  ${communitySourceLine(community)}\n`);
      }
    }
  } finally {
    await kgrag.close();
  }
}

function sampleQuestions(): { id: string; question: string }[] {
  return readFileSync(packagePath("samples", "questions.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { id: string; question: string });
}
