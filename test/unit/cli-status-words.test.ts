import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKgrag } from "../../src/kgrag.js";
import { runMain } from "../support/cli-in-process.js";

let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kgrag-cli-status-words-"));
  const kg = await createKgrag({ env: {}, config: { workspace: dir } });
  await kg.index(
    [
      { id: "porto", title: "Porto", text: "Ines Varga repairs clocks in Porto." },
      { id: "lisbon", title: "Lisbon", text: "Tomas Reis lives in Lisbon." },
      { id: "vessen", title: "Vessen", text: "The Halcyon Lens is ground in Vessen." },
    ],
    { communities: false },
  );
  // What a run leaves: one document with a chunk that failed, one waiting for the next run.
  await kg.services.store.setDocumentStatus("lisbon", "failed", "1 of 2 chunks not fully merged: timeout");
  await kg.services.store.setDocumentStatus("vessen", "processing", null);
  await kg.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("kgrag status", () => {
  it("names document states as the API and the web app do", async () => {
    const json = await runMain(["status", "--workspace", dir, "--json"]);
    const documents = JSON.parse(json.stdout).documents as { id: string; status: string }[];
    expect(Object.fromEntries(documents.map((d) => [d.id, d.status]))).toEqual({
      porto: "indexed",
      lisbon: "partial",
      vessen: "pending",
    });
    const table = (await runMain(["status", "--workspace", dir])).stdout;
    const row = (id: string) => table.split("\n").find((line) => line.startsWith(`${id} `)) ?? "";
    expect(row("porto")).toContain("indexed");
    expect(row("lisbon")).toContain("partial");
    expect(row("vessen")).toContain("pending");
    expect(table).not.toMatch(/\bprocess(ed|ing)\b/);
  });
});
