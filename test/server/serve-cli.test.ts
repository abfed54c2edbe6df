import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { basename, join } from "node:path";
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

/** The lines of `stderr` before the first one starting with `start`. */
function linesBefore(stderr: string, start: string): string[] {
  const lines = stderr.split("\n");
  return lines.slice(
    0,
    lines.findIndex((line) => line.startsWith(start)),
  );
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
      // Where the web app is, or that it is not built (then `/` serves none): said at the start.
      const home = await fetch(`${url}/`);
      const built = home.ok && (home.headers.get("content-type") ?? "").includes("text/html");
      expect(stderr).toContain(built ? `kgrag: web app at ${url}/\n` : "kgrag: no web app: it is not built");
      // While starting it says so, then what each workspace runs on, all before the address.
      expect(linesBefore(stderr, "kgrag: serving ")).toEqual([
        "kgrag: starting: opening the workspaces and starting the query processes...",
        `kgrag: workspace ${basename(dir)} (${dir}): sqlite, offline built-ins (no model configured)`,
      ]);
    } finally {
      child.process.kill("SIGTERM");
    }
    const result = await child.done;
    expect(result.code).toBe(0);
    // It says what stopping a server means, not the indexer's "after the current batch".
    expect(result.stderr).toContain(
      "kgrag: SIGTERM: stopping the server; a running job stops at its next safe point and resumes on the next start",
    );
    expect(result.stderr).not.toContain("current batch");
  }, 90_000);

  it("refuses a port out of range as a usage error", async () => {
    const result = await runCli(["serve", "--port", "70000"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--port/);
  }, 60_000);

  it("stops what it started and exits non-zero, naming --port, when the port is in use", async () => {
    const dir = await tempDir("serve-cli-busy");
    dirs.push(dir);
    await offlineWorkspace(dir, ATLAS_DOCS);
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as { port: number };
    const child = startCli(["serve", "--port", String(port), "--workspace", dir]);
    // Before the fix it kept running (its query workers alive) until a signal.
    const hung = setTimeout(() => child.process.kill("SIGKILL"), 45_000);
    try {
      const result = await child.done;
      expect(result.signal).toBeNull();
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`port ${port} is already in use`));
      expect(result.stderr).toMatch(/--port/);
    } finally {
      clearTimeout(hung);
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 90_000);

  it("says plainly that a --workspace path that did not exist is a NEW, EMPTY workspace", async () => {
    const parent = await tempDir("serve-cli-new");
    dirs.push(parent);
    const missing = join(parent, "no", "such-workspace");
    const child = startCli(["serve", "--port", "0", "--workspace", missing]);
    let stderr = "";
    child.process.stderr?.on("data", (text: string) => {
      stderr += text;
    });
    try {
      await announcedAddress(() => stderr);
    } finally {
      child.process.kill("SIGTERM");
    }
    const result = await child.done;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `kgrag: NOTE: ${missing} did not exist: created a NEW, EMPTY workspace there`,
    );
    expect(result.stderr).toMatch(/check the --workspace path/);
    expect(existsSync(missing)).toBe(true);
  }, 90_000);

  it("names the models a workspace calls before it listens", async () => {
    const parent = await tempDir("serve-cli-models");
    dirs.push(parent);
    const dir = join(parent, "team");
    // Nothing is asked of the models while starting: an address where none answers will do.
    const models = {
      KGRAG_LLM_MODEL: "team-chat-model",
      KGRAG_LLM_BASE_URL: "http://127.0.0.1:9/v1",
      KGRAG_LLM_API_KEY: "unused-key",
      KGRAG_EMBEDDING_MODEL: "team-embedding-model",
      KGRAG_EMBEDDING_DIM: "8",
    };
    const child = startCli(["serve", "--port", "0", "--workspace", dir], models);
    let stderr = "";
    child.process.stderr?.on("data", (text: string) => {
      stderr += text;
    });
    try {
      await announcedAddress(() => stderr);
    } finally {
      child.process.kill("SIGTERM");
    }
    const result = await child.done;
    expect(result.code).toBe(0);
    expect(linesBefore(result.stderr, "kgrag: NOTE: ")).toContain(
      `kgrag: workspace team (${dir}): sqlite, chat team-chat-model, embeddings team-embedding-model`,
    );
    expect(result.stderr).not.toContain("unused-key");
  }, 90_000);
});
