import { describe, expect, it } from "vitest";
import { jobsShown } from "../../web/src/components/job-list.js";

const job = (id: string, status: string) => ({ id, status });

describe("web app: the job cards shown", () => {
  it("shows every job still going and the three most recent finished ones, the rest behind a button", () => {
    const jobs = [
      job("a", "running"),
      job("b", "done"),
      job("c", "failed"),
      job("d", "queued"),
      job("e", "done"),
      job("f", "done"),
      job("g", "interrupted"),
    ];
    const { shown, earlier } = jobsShown(jobs, new Set());
    expect(shown.map((j) => j.id)).toEqual(["a", "b", "c", "d", "e"]);
    expect(earlier.map((j) => j.id)).toEqual(["f", "g"]);
  });

  it("leaves out the finished jobs dismissed, never a running one", () => {
    const jobs = [
      job("a", "running"),
      job("b", "done"),
      job("c", "done"),
      job("d", "done"),
      job("e", "done"),
    ];
    const { shown, earlier } = jobsShown(jobs, new Set(["a", "b"]));
    expect(shown.map((j) => j.id)).toEqual(["a", "c", "d", "e"]);
    expect(earlier).toEqual([]);
  });
});
