import { describe, expect, it } from "vitest";
import { BatchChannel } from "../../src/pipeline/batch-channel.js";

async function readAll<T>(channel: AsyncIterable<T>): Promise<T[]> {
  const read: T[] = [];
  for await (const batch of channel) read.push(batch);
  return read;
}

describe("BatchChannel (registration to extraction)", () => {
  it("hands on batches pushed before and while the reader waits, in order, until closed", async () => {
    const channel = new BatchChannel<string[]>();
    channel.push(["a", "b"]);
    const reading = readAll(channel);
    await Promise.resolve();
    channel.push(["c"]);
    setTimeout(() => {
      channel.push(["d"]);
      channel.close();
    }, 5);
    expect(await reading).toEqual([["a", "b"], ["c"], ["d"]]);
  });

  it("gives the batches pushed before a failure, then throws the writer's error", async () => {
    const channel = new BatchChannel<string[]>();
    const read: string[][] = [];
    const reading = (async () => {
      for await (const batch of channel) read.push(batch);
    })();
    channel.push(["a"]);
    channel.fail(new Error("registration failed"));
    await expect(reading).rejects.toThrow("registration failed");
    expect(read).toEqual([["a"]]);
  });

  it("keeps the first ending: a close after a failure still throws", async () => {
    const channel = new BatchChannel<number>();
    channel.fail(new Error("stopped"));
    channel.close();
    await expect(readAll(channel)).rejects.toThrow("stopped");
  });
});
