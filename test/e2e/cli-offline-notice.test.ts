import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runMain } from "../support/cli-in-process.js";

const OFFLINE_NOTICE = /no LLM configured .* offline built-ins/;

describe("the offline notice (CLI, no model configured)", () => {
  const root = mkdtempSync(join(tmpdir(), "kgrag-notice-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("is printed by commands that would call a model, and not by those that never do", async () => {
    const docs = join(root, "docs");
    mkdirSync(docs);
    writeFileSync(
      join(docs, "lumen.txt"),
      "Lumen Robotics\n\nLumen Robotics was founded by Mara Okafor in Lisbon.\n",
    );
    const ws = join(root, "ws");

    const index = await runMain(["index", docs, "--workspace", ws, "--no-communities"]);
    expect(index.code).toBe(0);
    expect(index.stderr).toMatch(OFFLINE_NOTICE);

    const status = await runMain(["status", "--workspace", ws]);
    expect(status.code).toBe(0);
    expect(status.stderr).not.toMatch(OFFLINE_NOTICE);

    const exported = await runMain(["export", "--out", join(root, "graph.json"), "--workspace", ws]);
    expect(exported.code).toBe(0);
    expect(exported.stderr).not.toMatch(OFFLINE_NOTICE);
  });
});
