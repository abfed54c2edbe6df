import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Driver } from "neo4j-driver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, startCli } from "../support/cli-child.js";
import { liveDriver, liveNeo4j, skipReason } from "../support/live-neo4j.js";

/** The address `kgrag serve` announces on stderr. */
async function announcedAddress(stderr: () => string): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const match = / on (http:\/\/[^\s]+) with/.exec(stderr());
    if (match?.[1]) return match[1];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`kgrag serve announced no address:\n${stderr()}`);
}

/**
 * On Neo4j a workspace is named by the last segment of --workspace; its folder only holds the
 * server's files. Serving an indexed Neo4j workspace from a folder not made yet must not be
 * announced as a new, empty workspace.
 */
describe.skipIf(!liveNeo4j)(
  `kgrag serve's new-workspace notice on Neo4j (${liveNeo4j ? "live" : skipReason})`,
  () => {
    let root: string;
    let driver: Driver;
    const name = `serve-notice-${randomUUID()}`;
    const env = () => ({
      KGRAG_STORAGE: "neo4j",
      NEO4J_URI: liveNeo4j?.uri ?? "",
      NEO4J_USERNAME: liveNeo4j?.username ?? "",
      NEO4J_PASSWORD: liveNeo4j?.password ?? "",
    });

    beforeAll(async () => {
      if (!liveNeo4j) return;
      driver = liveDriver(liveNeo4j);
      root = mkdtempSync(join(tmpdir(), "kgrag-serve-notice-"));
      const doc = join(root, "harbour.txt");
      writeFileSync(doc, "Corvane Shipping is a cargo line based in Port Ellery.");
      const indexed = await runCli(["index", doc, "--workspace", join(root, "indexed", name)], env());
      expect(indexed.code, indexed.stderr).toBe(0);
    }, 180_000);

    afterAll(async () => {
      if (!liveNeo4j) return;
      await driver.executeQuery("MATCH (n {workspace: $name}) DETACH DELETE n", { name });
      await driver.close();
      rmSync(root, { recursive: true, force: true });
    });

    it("says nothing of a NEW, EMPTY workspace when the Neo4j workspace of that name holds documents", async () => {
      const child = startCli(["serve", "--port", "0", "--workspace", join(root, "elsewhere", name)], env());
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
      expect(result.stderr).toContain(`serving ${name}`);
      expect(result.stderr).not.toMatch(/NEW, EMPTY/);
    }, 120_000);
  },
);
