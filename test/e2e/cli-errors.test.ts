import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.js";

/** Runs the CLI in-process and returns what it wrote to stderr and its exit code. */
async function run(args: string[]): Promise<{ stderr: string; code: number }> {
  let stderr = "";
  vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  process.exitCode = 0;
  await main(["node", "kgrag", ...args]);
  vi.restoreAllMocks();
  const code = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return { stderr, code };
}

describe("CLI errors for a wrong folder or path", () => {
  const root = mkdtempSync(join(tmpdir(), "kgrag-cli-errors-"));
  afterEach(() => vi.restoreAllMocks());
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("says a read command's workspace does not exist instead of creating an empty one", async () => {
    const ws = join(root, "not-a-workspace");
    for (const args of [["status"], ["query", "who?"], ["communities"]]) {
      const { stderr, code } = await run([...args, "--workspace", ws]);
      expect(code).toBe(2);
      expect(stderr).toMatch(/No kgrag workspace at .*not-a-workspace.*kgrag index/);
    }
    expect(existsSync(ws)).toBe(false);
  });

  it("refuses to index a path that does not exist, before touching the workspace", async () => {
    const ws = join(root, "ws");
    const { stderr, code } = await run(["index", join(root, "missing-folder"), "--workspace", ws]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/No such file or folder: .*missing-folder/);
    expect(existsSync(ws)).toBe(false);
  });
});
