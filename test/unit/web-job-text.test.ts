import { describe, expect, it } from "vitest";
import { type JobSummary, jobHeading, jobPercent } from "../../web/src/components/job-text.js";

const job = (fields: Partial<JobSummary>): JobSummary => ({
  kind: "index",
  status: "running",
  done: 0,
  total: 0,
  documents: [],
  ...fields,
});

describe("web app: job cards", () => {
  it("say what the job does instead of its id", () => {
    expect(jobHeading(job({ files: ["a.txt", "b.md"], documents: ["doc-1", "doc-2"] }))).toBe(
      "Index 2 files: a.txt, b.md",
    );
    expect(jobHeading(job({ files: ["a.txt", "b.md", "c.md", "d.pdf", "e.txt"] }))).toBe(
      "Index 5 files: a.txt, b.md, c.md and 2 more",
    );
    expect(jobHeading(job({ files: ["one.txt"] }))).toBe("Index 1 file: one.txt");
    const titles = new Map([["lisbon", "Lisbon"]]);
    expect(jobHeading(job({ kind: "delete", documents: ["lisbon"] }), (id) => titles.get(id))).toBe(
      "Delete Lisbon",
    );
    expect(jobHeading(job({ kind: "reindex", documents: ["porto"] }))).toBe("Re-index porto");
    const titles2 = { "text-3f2a": "Porto", "text-9c1b": "Lisbon" };
    expect(jobHeading(job({ documents: ["text-9c1b", "text-3f2a"], titles: titles2 }))).toBe(
      "Index Lisbon, Porto",
    );
    expect(jobHeading(job({ documents: ["t1", "t2", "t3", "t4"] }))).toBe(
      "Index 4 documents: t1, t2, t3 and 1 more",
    );
  });

  it("fill the bar with the whole job's progress, not the current step's done of total", () => {
    expect(jobPercent(job({ done: 1, total: 10, progress: 0.82 }))).toBe(82);
    expect(jobPercent(job({ status: "done", done: 0, total: 0, progress: 0.5 }))).toBe(100);
    // A server that reports no overall progress: the step's count.
    expect(jobPercent(job({ done: 1, total: 4 }))).toBe(25);
  });
});
