import { connect } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { offlineWorkspace, removeAll, startServer, tempDir } from "../support/server.js";

const dirs: string[] = [];

afterAll(async () => {
  await removeAll(dirs);
});

describe("kgrag serve: shutdown", () => {
  it("stops after its grace period although a client never finishes its request", async () => {
    const dir = await tempDir("shutdown");
    dirs.push(dir);
    await offlineWorkspace(dir, []);
    const running = await startServer({ workspaces: [dir], server: { shutdownGraceMs: 300 } });
    const { hostname, port } = new URL(running.url);
    const socket = connect(Number(port), hostname);
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.on("error", () => {});
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    // A body announced and never sent: the request stays in flight until the server cuts it.
    socket.write(
      "POST /api/v1/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await running.stop();
    await closed;
    expect(socket.destroyed).toBe(true);
  }, 20_000);
});
