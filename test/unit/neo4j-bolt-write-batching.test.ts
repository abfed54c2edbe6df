import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { installBoltWriteBatching } from "../../src/storage/neo4j/bolt-write-batching.js";

const require = createRequire(import.meta.url);

interface ChannelBufferModule {
  alloc(size: number): { _buffer: Buffer };
}
type WriteFn = (this: unknown, buffer: unknown) => void;
const { alloc } = require("neo4j-driver-bolt-connection/lib/channel/channel-buf.js") as ChannelBufferModule;
const NodeChannel = (
  require("neo4j-driver-bolt-connection/lib/channel/node/node-channel.js") as {
    default: { prototype: { write: WriteFn } };
  }
).default;

/** A socket that records what the channel does to it, in order. */
function recordingSocket() {
  const calls: string[] = [];
  return {
    calls,
    cork: () => calls.push("cork"),
    uncork: () => calls.push("uncork"),
    write: (buffer: Buffer) => calls.push(`write ${buffer.length}`),
  };
}

const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));

describe("Bolt write batching (neo4j-driver's Node channel)", () => {
  it("is installed on the pinned driver (a driver upgrade that changes its channel fails here)", () => {
    expect(installBoltWriteBatching()).toBe(true);
    expect(installBoltWriteBatching()).toBe(true);
  });

  it("corks the socket once for the chunks written in one tick and uncorks it after the tick", async () => {
    installBoltWriteBatching();
    const socket = recordingSocket();
    const channel = { _pending: null, _conn: socket };
    for (const size of [1400, 1400, 20]) NodeChannel.prototype.write.call(channel, alloc(size));
    expect(socket.calls).toEqual(["cork", "write 1400", "write 1400", "write 20"]);
    await nextTick();
    expect(socket.calls.at(-1)).toBe("uncork");
    NodeChannel.prototype.write.call(channel, alloc(7));
    await nextTick();
    expect(socket.calls.slice(5)).toEqual(["cork", "write 7", "uncork"]);
  });

  it("leaves writes queued before the connection opens to the driver", async () => {
    installBoltWriteBatching();
    const socket = recordingSocket();
    const pending: unknown[] = [];
    const channel = { _pending: pending, _conn: socket };
    NodeChannel.prototype.write.call(channel, alloc(10));
    await nextTick();
    expect(pending).toHaveLength(1);
    expect(socket.calls).toEqual([]);
  });
});
