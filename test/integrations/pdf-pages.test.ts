import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKgrag } from "../../src/index.js";
import { getEntity } from "../../src/integrations/graph-lookups.js";
import type { QueryResult } from "../../src/query/result.js";
import { runMain } from "../support/cli-in-process.js";
import { minimalPdfPages } from "../support/document-fixtures.js";

/** Three pages, each about one thing, long enough that small chunks stay within a page. */
const PAGES = [
  ["Lumen Robotics was founded by Mara Okafor in Lisbon in 2015.", "The company builds harbour drones."],
  ["Tidewell Harbour bought twelve drones from Lumen Robotics.", "The harbour master is Jonas Brandt."],
  ["The Carrow Bay lighthouse stands on Gull Rock.", "Its lamp was rebuilt by Idris Vale in 1998."],
];

/** The document text as the loader builds it: a page's lines on their own lines, pages apart. */
const PAGE_TEXTS = PAGES.map((lines) => lines.join("\n"));
const DOCUMENT_TEXT = PAGE_TEXTS.join("\n\n");

/** The page of a character of DOCUMENT_TEXT, counted from the fixture's own pages. */
function pageOfOffset(offset: number): number {
  let start = 0;
  for (const [i, text] of PAGE_TEXTS.entries()) {
    if (offset < start + text.length + 2) return i + 1;
    start += text.length + 2;
  }
  return PAGES.length;
}

let root: string;
let workspace: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "kgrag-pdf-"));
  workspace = join(root, "ws");
  const pdf = join(root, "report.pdf");
  await writeFile(pdf, minimalPdfPages(PAGES));
  const kg = await createKgrag({ env: {}, config: { workspace, chunking: { size: 24, overlap: 0 } } });
  await kg.index([pdf]);
  await kg.close();
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("page numbers of PDF passages", () => {
  it("say which page each reference comes from, in the library's result", async () => {
    const kg = await createKgrag({ env: {}, config: { workspace } });
    try {
      const result = await kg.query("Who rebuilt the lamp of the Carrow Bay lighthouse?", {
        mode: "naive",
        contextOnly: true,
      });
      expect(result.references.length).toBeGreaterThan(1);
      for (const [i, reference] of result.references.entries()) {
        expect(DOCUMENT_TEXT.slice(reference.start, reference.end)).toBe(result.context.chunks[i]?.text);
        const first = pageOfOffset(reference.start);
        const last = pageOfOffset(reference.end - 1);
        expect([reference.page, reference.pageEnd ?? reference.page]).toEqual([first, last]);
      }
      const pagesSeen = new Set(result.references.map((r) => r.page));
      expect(pagesSeen.size).toBeGreaterThan(1);
      const top = result.references[0];
      expect(top && (top.pageEnd ?? top.page)).toBe(3);
    } finally {
      await kg.close();
    }
  });

  it("come with the passages of an entity (the MCP get_entity tool)", async () => {
    const kg = await createKgrag({ env: {}, config: { workspace } });
    try {
      const entity = await getEntity(kg.services.store, "Idris Vale", { passages: 5, relationships: 5 });
      expect(entity?.passages.length).toBeGreaterThan(0);
      for (const passage of entity?.passages ?? []) {
        expect(passage.page).toBe(pageOfOffset(passage.start));
        expect(passage.pageEnd ?? passage.page).toBe(3);
      }
    } finally {
      await kg.close();
    }
  });

  it("show in `kgrag query` output and its JSON", async () => {
    const question = "Who bought drones from Lumen Robotics?";
    const json = await runMain([
      "query",
      question,
      "--mode",
      "naive",
      "--context-only",
      "--json",
      "-w",
      workspace,
    ]);
    const result = JSON.parse(json.stdout) as QueryResult;
    const top = result.references[0];
    expect(top?.page).toBe(pageOfOffset(top?.start ?? -1));
    expect(top?.page).toBeGreaterThanOrEqual(1);
    const text = await runMain(["query", question, "--mode", "naive", "-w", workspace]);
    const pages = top?.pageEnd ? `${top.page}-${top.pageEnd}` : `${top?.page}`;
    expect(text.stdout).toContain(
      `[1] report.pdf (document ${top?.docId}, page ${pages}, chunk ${top?.chunkId}`,
    );
  });
});
