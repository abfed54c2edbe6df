import { describe, expect, it } from "vitest";
import { overallProgress, type StepCount } from "../../src/server/jobs/job-progress.js";

const steps = (entries: [string, number, number][]) =>
  new Map<string, StepCount>(entries.map(([step, done, total]) => [step, { done, total }]));

describe("a server job's overall progress", () => {
  it("weighs each phase by its share, whatever the current step's own count", () => {
    expect(overallProgress(steps([]))).toBe(0);
    expect(overallProgress(steps([["register", 12, 12]]))).toBeCloseTo(0.05);
    // Half the extraction (and the chunk vectors beside it) done: the register phase plus half of 50.
    const halfway = overallProgress(
      steps([
        ["register", 12, 12],
        ["extract", 6, 12],
        ["embed chunks", 6, 12],
      ]),
    );
    expect(halfway).toBeCloseTo(0.3);
    // Reports one in ten: far more than the step's 10%.
    const reports = overallProgress(
      steps([
        ["register", 1, 1],
        ["extract", 1, 1],
        ["summarize", 1, 1],
        ["embed entities", 10, 10],
        ["community reports", 1, 10],
      ]),
    );
    expect(reports).toBeCloseTo(0.815);
  });

  it("counts a phase that never started as done once a later one did, and one with nothing to do as done", () => {
    // A delete extracts nothing: its first step is an embedding.
    expect(overallProgress(steps([["embed entities", 0, 14]]))).toBeCloseTo(0.65);
    expect(
      overallProgress(
        steps([
          ["register", 1, 1],
          ["summarize", 0, 0],
        ]),
      ),
    ).toBeCloseTo(0.65);
  });

  it("stays below 1 while the job runs, its last step finished too, and counts the report vectors", () => {
    // Every report written: the job still embeds them and settles its documents, so it is not done.
    const reportsWritten = overallProgress(
      steps([
        ["register", 1, 1],
        ["extract", 1, 1],
        ["summarize", 1, 1],
        ["embed entities", 10, 10],
        ["community reports", 30, 30],
      ]),
    );
    expect(reportsWritten).toBeCloseTo(0.95);
    // Their vectors, embedded after the last report, are counted on from there: the job queue keeps
    // the highest progress seen, so a count that fell back at their start would not show.
    const embedding = overallProgress(
      steps([
        ["register", 1, 1],
        ["extract", 1, 1],
        ["summarize", 1, 1],
        ["embed entities", 10, 10],
        ["community reports", 30, 30],
        ["embed communities", 15, 30],
      ]),
    );
    expect(embedding).toBeGreaterThan(reportsWritten);
    expect(embedding).toBeCloseTo(0.975);
  });

  it("leaves out steps of no phase and never passes 1", () => {
    expect(overallProgress(steps([["copy documents", 5, 10]]))).toBe(0);
    expect(overallProgress(steps([["register", 20, 10]]))).toBeCloseTo(0.05);
  });
});
