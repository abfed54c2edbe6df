import { afterAll, describe, expect, it } from "vitest";
import { runCli, startCli } from "../support/cli-child.js";
import { ATLAS_DOCS, offlineWorkspace, removeAll, tempDir } from "../support/server.js";

const dirs: string[] = [];
afterAll(() => removeAll(dirs));

/** The address `kgrag serve` announces on stderr. */
async function announcedAddress(stderr: () => string): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const match = / on (http:\/\/[^\s]+) with/.exec(stderr());
    if (match?.[1]) return match[1];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`kgrag serve announced no address:\n${stderr()}`);
}

describe("kgrag serve (CLI)", () => {
  it("serves a workspace on 127.0.0.1 and stops cleanly on SIGTERM", async () => {
    const dir = await tempDir("serve-cli");
    dirs.push(dir);
    await offlineWorkspace(dir, ATLAS_DOCS);
    const child = startCli(["serve", "--port", "0", "--workspace", dir]);
    let stderr = "";
    child.process.stderr?.on("data", (text: string) => {
      stderr += text;
    });
    try {
      const url = await announcedAddress(() => stderr);
      expect(new URL(url).hostname).toBe("127.0.0.1");
      const health = (await (await fetch(`${url}/health`)).json()) as { ok: boolean };
      expect(health.ok).toBe(true);
    } finally {
      child.process.kill("SIGTERM");
    }
    const result = await child.done;
    expect(result.code).toBe(0);
    // It says what stopping a server means, not the indexer's "after the current batch".
    expect(result.stderr).toContain("kgrag: SIGTERM: stopping the server; a running job is finished first");
    expect(result.stderr).not.toContain("current batch");
  }, 90_000);

  it("refuses a port out of range as a usage error", async () => {
    const result = await runCli(["serve", "--port", "70000"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--port/);
  }, 60_000);
});
