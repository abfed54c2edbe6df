import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..", "..");
const BIN = join(ROOT, "bin", "kgrag.js");

/** The CLI as users get it: bin/kgrag.js running the bundle `npm run build` wrote to dist/cli. */
describe("packaged CLI (bin/kgrag.js, built)", () => {
  let dir: string;
  beforeAll(() => {
    if (!existsSync(join(ROOT, "dist", "cli", "kgrag-cli.js")))
      throw new Error("dist/cli is missing: run `npm run build` (npm ci runs it) before the tests");
    dir = mkdtempSync(join(tmpdir(), "kgrag-packaged-"));
    writeFileSync(
      join(dir, "corvane.txt"),
      "Corvane Shipping\n\nIt was founded in 1987 by Tomas Arkwright.\n",
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const kgrag = (args: string[]) =>
    run(process.execPath, [BIN, ...args], { cwd: dir, env: { PATH: process.env.PATH ?? "", HOME: dir } });

  it("prints the package version", async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect((await kgrag(["--version"])).stdout.trim()).toBe(version);
  });

  it("indexes, reports status and answers from the bundle", async () => {
    await kgrag(["index", "corvane.txt", "--workspace", "ws"]);
    const status = JSON.parse((await kgrag(["status", "--json", "--workspace", "ws"])).stdout) as {
      counts: { documents: number };
      extractor: string;
    };
    expect(status.counts.documents).toBe(1);
    expect(status.extractor).toBe("offline-nlp");
    const answer = await kgrag(["query", "Who founded Corvane Shipping?", "--workspace", "ws"]);
    expect(answer.stdout).toContain("Tomas Arkwright");
  });
});
