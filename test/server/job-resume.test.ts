import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createKgrag } from "../../src/kgrag.js";
import type { Job, JobSpec } from "../../src/server/jobs/job-types.js";
import { finishedFrom, type JobSummary } from "../../src/server/jobs/job-work.js";
import { ATLAS_DOCS, json, offlineWorkspace, removeAll, startServer, tempDir } from "../support/server.js";

const dirs: string[] = [];
afterAll(() => removeAll(dirs));

describe("kgrag serve: a job run again after a restart", () => {
  it("counts the documents it resumed as indexed", async () => {
    const dir = await tempDir("job-resume");
    dirs.push(dir);
    await offlineWorkspace(dir, ATLAS_DOCS);
    // The state a server stopped mid-job leaves: its documents pending, the job saved as running.
    const kgrag = await createKgrag({ env: {}, config: { workspace: dir } });
    try {
      await kgrag.services.store.setDocumentStatuses(
        ATLAS_DOCS.map((d) => ({ id: d.id as string, status: "pending" as const, error: null })),
      );
    } finally {
      await kgrag.close();
    }
    const id = randomUUID();
    const ids = ATLAS_DOCS.map((d) => d.id as string);
    const spec: JobSpec = {
      kind: "index",
      files: [],
      texts: ATLAS_DOCS.map((d) => ({
        id: d.id as string,
        title: d.title as string,
        text: d.text,
        metadata: d.metadata,
      })),
    };
    const serverFolder = join(dir, "server");
    mkdirSync(join(serverFolder, "job-inputs"), { recursive: true });
    writeFileSync(join(serverFolder, "job-inputs", `${id}.json`), JSON.stringify(spec));
    const saved: Job = {
      id,
      kind: "index",
      status: "running",
      stage: "extract",
      done: 0,
      total: 0,
      progress: 0,
      errors: [],
      documents: ids,
      createdAt: new Date().toISOString(),
    };
    writeFileSync(join(serverFolder, "jobs.json"), JSON.stringify([saved]));

    const running = await startServer({ workspaces: [dir] });
    try {
      let again: Job | undefined;
      for (let i = 0; i < 600 && again?.status !== "done" && again?.status !== "failed"; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const jobs = (await json(await fetch(`${running.url}/api/v1/jobs`))).items as Job[];
        again = jobs.find((j) => j.id !== id);
      }
      expect(again).toMatchObject({ status: "done", errors: [] });
      expect(again?.message).toBe("2 document(s) indexed (2 resumed), 0 unchanged, 0 error(s)");
      const listed = (await json(await fetch(`${running.url}/api/v1/documents`))).items as {
        status: string;
      }[];
      expect(listed.map((d) => d.status)).toEqual(["indexed", "indexed"]);
    } finally {
      await running.stop();
    }
  }, 90_000);
});

describe("an index job's message", () => {
  const summary = (parts: Partial<JobSummary>): JobSummary => ({
    added: [],
    updated: [],
    resumed: [],
    unchanged: [],
    metadataUpdated: [],
    failures: [],
    skipped: [],
    ...parts,
  });

  it("counts as indexed only the documents that did not fail, resumed ones included", () => {
    const finished = finishedFrom([
      summary({
        added: ["new", "new-bad"],
        resumed: ["back", "back-bad"],
        unchanged: ["same"],
        failures: [
          { docId: "back-bad", title: "back-bad.txt", error: "model timed out" },
          { docId: "new-bad", title: "new-bad.txt", error: "model timed out" },
        ],
      }),
    ]);
    expect(finished.message).toBe("2 document(s) indexed (1 resumed), 1 unchanged, 2 error(s)");
    expect([...finished.documents].sort()).toEqual(["back", "back-bad", "new", "new-bad", "same"]);
    expect(
      finishedFrom([summary({ resumed: ["x"], failures: [{ docId: "x", title: "x.txt", error: "no" }] })])
        .message,
    ).toBe("0 document(s) indexed, 0 unchanged, 1 error(s)");
  });

  it("names the documents whose metadata alone was updated, apart from the indexed and unchanged ones", () => {
    const finished = finishedFrom([
      summary({ added: ["new"], metadataUpdated: ["retagged"], unchanged: ["same"] }),
    ]);
    expect(finished.message).toBe("1 document(s) indexed, 1 metadata updated, 1 unchanged, 0 error(s)");
    expect([...finished.documents].sort()).toEqual(["new", "retagged", "same"]);
  });
});
