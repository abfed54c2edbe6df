import { describe, expect, it } from "vitest";
import { FollowUpFirstLimit } from "../../src/llm/follow-up-first.js";

/** A call that runs until `finish` is called, recording when it started. */
function heldCall(started: string[], name: string) {
  let finish = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const work = async () => {
    started.push(name);
    await done;
    return name;
  };
  return { work, finish: () => finish() };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("FollowUpFirstLimit", () => {
  it("runs at most `concurrency` calls and serves waiting follow-ups before new calls", async () => {
    const limit = new FollowUpFirstLimit(2);
    const started: string[] = [];
    const calls = ["a", "b", "fresh-1", "follow-1", "fresh-2", "follow-2"].map((n) => heldCall(started, n));
    const results = calls.map((call, i) => limit.run(call.work, i === 3 || i === 5));
    await settle();
    expect(started).toEqual(["a", "b"]);
    calls[0]?.finish();
    await settle();
    expect(started).toEqual(["a", "b", "follow-1"]);
    calls[1]?.finish();
    calls[3]?.finish();
    await settle();
    expect(started).toEqual(["a", "b", "follow-1", "follow-2", "fresh-1"]);
    for (const call of calls) call.finish();
    expect(await Promise.all(results)).toEqual(["a", "b", "fresh-1", "follow-1", "fresh-2", "follow-2"]);
    expect(started).toHaveLength(6);
  });

  it("frees the slot of a call that fails", async () => {
    const limit = new FollowUpFirstLimit(1);
    await expect(limit.run(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await limit.run(async () => "next")).toBe("next");
  });
});
