/**
 * Memory of `kgrag index` over a 50 MB .jsonl (100 short passages, each line padded with 512 KB of a
 * field kgrag ignores) against a run over 100 short passages in .txt files. Both run as CLI child
 * processes with bench/memory-probe.mjs preloaded, which records the peak of live JavaScript memory
 * after garbage collections. Streaming the .jsonl line by line keeps the difference small; holding
 * the file, or its ignored field, would add about 50 MB. Run: npx tsx bench/lifecycle-memory.ts
 */
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { passage, seededRandom, writeCorpus } from "../test/support/lifecycle-corpus.js";

const repo = join(import.meta.dirname, "..");
const probe = join(import.meta.dirname, "memory-probe.mjs");

/** Peak live memory (MB) of one `kgrag index <folder>` into `workspace`. */
function measuredIndex(folder: string, workspace: string, memoryFile: string): number {
  const run = spawnSync(
    process.execPath,
    ["--import", "tsx", "src/cli/run.ts", "index", folder, "--workspace", workspace, "--json"],
    {
      cwd: repo,
      encoding: "utf8",
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_OPTIONS: `--expose-gc --import ${probe}`,
        KGRAG_TEST_MEMORY_FILE: memoryFile,
      },
    },
  );
  if (run.status !== 0) throw new Error(`kgrag index exited ${run.status}:\n${run.stderr}`);
  return Number(readFileSync(memoryFile, "utf8"));
}

function writeBigJsonl(path: string): void {
  const padding = "x".repeat(512 * 1024);
  const random = seededRandom(3);
  const fd = openSync(path, "w");
  for (let n = 0; n < 100; n++) {
    const line = { id: `archive-${n}`, text: `Archive entry ${n}. ${passage(n, random)}`, padding };
    writeSync(fd, `${JSON.stringify(line)}\n`);
  }
  closeSync(fd);
}

const root = mkdtempSync(join(tmpdir(), "kgrag-bench-memory-"));
try {
  const short = join(root, "short");
  writeCorpus(short, 100, 61);
  const big = join(root, "big");
  writeCorpus(big, 0);
  writeBigJsonl(join(big, "big.jsonl"));
  const shortMb = measuredIndex(short, join(root, "ws-short"), join(root, "memory-short"));
  const bigMb = measuredIndex(big, join(root, "ws-big"), join(root, "memory-big"));
  console.log(`100 short .txt passages: peak live memory ${shortMb.toFixed(2)} MB`);
  console.log(`50 MB .jsonl (100 passages): peak live memory ${bigMb.toFixed(2)} MB`);
  console.log(`difference: ${(bigMb - shortMb).toFixed(2)} MB (holding the file would add ~50 MB)`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
