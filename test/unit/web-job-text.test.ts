import { describe, expect, it } from "vitest";
import { type JobSummary, jobHeading, jobPercent, stepText } from "../../web/src/components/job-text.js";

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

describe("web app: a job card's step", () => {
  it("names the step in words and says what its count counts", () => {
    expect(stepText({ stage: "register", done: 3, total: 10 })).toBe("Reading documents · 3 / 10 documents");
    expect(stepText({ stage: "extract", done: 1, total: 1 })).toBe(
      "Extracting entities and relationships · 1 / 1 passage",
    );
    expect(stepText({ stage: "embed entities", done: 40, total: 52 })).toBe(
      "Embedding entities · 40 / 52 entities",
    );
    expect(stepText({ stage: "vector index chunks", done: 5, total: 9 })).toBe(
      "Building the passage vector index · 5 / 9 vectors",
    );
    expect(stepText({ stage: "community reports", done: 1, total: 10 })).toBe(
      "Writing community reports · 1 / 10 reports",
    );
  });

  it("leaves the count out of steps without one, and keeps an unknown step's own name", () => {
    expect(stepText({ stage: "queued", done: 0, total: 0 })).toBe("Queued");
    expect(stepText({ stage: "done", done: 0, total: 0 })).toBe("Done");
    expect(stepText({ stage: "copy documents", done: 2, total: 4 })).toBe("copy documents · 2 / 4");
    expect(stepText({ stage: "", done: 0, total: 0 })).toBe("");
  });

  it("says a finished job is done without its last step's count, which beside Done reads as documents", () => {
    // Seen on a job of 5 files (7 documents) that ended on embedding 9 community reports.
    expect(stepText({ stage: "done", done: 9, total: 9 })).toBe("Done");
  });
});
