import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeIndexRun } from "../../src/cli/actions/status.js";
import { withWorkspaceLock } from "../../src/workspace/lock.js";
import { indexRunReport } from "../../src/workspace/status.js";
import { makeDocument } from "../support/storage-fixtures.js";

const HALF_INDEXED = [
  makeDocument("a", { status: "processed" }),
  makeDocument("b", { status: "processing" }),
  makeDocument("c", { status: "pending" }),
  makeDocument("d", { status: "failed" }),
];

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(child.stdout);
}

describe("status of a workspace's index run", () => {
  let ws: string;
  beforeEach(() => {
    ws = mkdtempSync(join(tmpdir(), "kgrag-index-run-"));
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));

  it("calls documents left processing by a killed run interrupted, and says re-running resumes", () => {
    // kill -9 leaves the lock folder named after a process that is gone.
    const folder = join(ws, "kgrag.lock");
    mkdirSync(folder);
    writeFileSync(
      join(folder, "owner.json"),
      JSON.stringify({ pid: deadPid(), host: hostname(), since: "x" }),
    );
    for (const workspace of [ws, join(ws, "never-locked")]) {
      const run = indexRunReport("sqlite", workspace, HALF_INDEXED);
      expect(run).toEqual({ unfinishedDocuments: 2, state: "interrupted" });
      const text = describeIndexRun(run);
      expect(text).toContain("interrupted: 2 documents are not fully indexed and no run is active");
      expect(text).toContain("Run `kgrag index` again to resume");
    }
  });

  it("calls them in progress while a run holds the workspace", async () => {
    await withWorkspaceLock(ws, async () => {
      const run = indexRunReport("sqlite", ws, HALF_INDEXED);
      expect(run.state).toBe("running");
      expect(run.writer?.pid).toBe(process.pid);
      expect(describeIndexRun(run)).toMatch(
        /^An index run is in progress \(pid \d+ on .*2 documents are still/,
      );
    });
  });

  it("says nothing when every document is finished, and hedges where the writer is not seen", () => {
    const done = [makeDocument("a", { status: "processed" }), makeDocument("d", { status: "failed" })];
    expect(indexRunReport("sqlite", ws, done)).toEqual({ unfinishedDocuments: 0, state: "idle" });
    expect(describeIndexRun(indexRunReport("sqlite", ws, done))).toBeNull();
    const neo4j = indexRunReport("neo4j", ws, HALF_INDEXED);
    expect(neo4j.state).toBe("unknown");
    expect(describeIndexRun(neo4j)).toMatch(/in progress or was interrupted.*kgrag index/);
  });
});
