import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.js";

describe("kgrag demo", () => {
  const root = mkdtempSync(join(tmpdir(), "kgrag-demo-"));
  afterEach(() => {
    vi.restoreAllMocks();
    rmSync(root, { recursive: true, force: true });
  });

  it("indexes the bundled samples and answers in every mode with passage references", async () => {
    let out = "";
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      out += String(chunk);
      return true;
    });
    vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    await main(["node", "kgrag", "demo", "--workspace", join(root, "ws"), "--questions", "3"]);
    vi.restoreAllMocks();

    expect(process.exitCode ?? 0).toBe(0);
    expect(out).toMatch(/Indexed the samples: 12 documents/);
    for (const mode of ["naive", "local", "global", "hybrid", "mix"]) {
      expect(out.split(`[${mode}] `).length - 1).toBe(3);
    }
    // The English two-hop question reaches the founder's own passage, the Chinese one its company.
    expect(out).toContain("Idris Vale");
    expect(out).toMatch(/\[1\] .+ \(.+, chars \d+-\d+\)/);
    expect(out).toContain("From the community reports");
  });
});
