import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KgragConfigInput } from "../../src/config.js";
import { ConfigError } from "../../src/config-error.js";
import { createKgrag } from "../../src/kgrag.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "kgrag-offline-config-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const TEXT =
  "Lumora Optics makes Halcyon lenses in Vessen with Tidewell Robotics and Carrow Bay Shipping. " +
  "Ada Marlow founded Lumora Optics in Vessen with Ben Orrin, Cora Vale and Dmitri Hask. " +
  "Halcyon lenses from Lumora Optics fly on Gullwing drones that Tidewell Robotics builds in Carrow Bay.";

/** Relationship count and the longest entity description after indexing TEXT with `offline`. */
async function indexWith(workspace: string, offline: KgragConfigInput["extraction"]) {
  const kgrag = await createKgrag({ env: {}, config: { workspace, extraction: offline } });
  try {
    await kgrag.index([{ id: "lumora", title: "Lumora Optics", text: TEXT }]);
    const status = await kgrag.status();
    const [ada] = await kgrag.services.store.getEntities(["ada marlow"]);
    return { relationships: status.counts.relationships, ada: ada?.description ?? "" };
  } finally {
    await kgrag.close();
  }
}

describe("config extraction.offline", () => {
  it("sets how many relationships and description sentences the offline extractor keeps per chunk", async () => {
    const full = await indexWith(join(dir, "full"), {});
    const lean = await indexWith(join(dir, "lean"), {
      offline: { maxRelationshipsPerChunk: 3, sentencesPerEntity: 1 },
    });
    expect(full.relationships).toBeGreaterThan(3);
    expect(lean.relationships).toBe(3);
    expect(lean.ada.length).toBeGreaterThan(0);
    expect(full.ada.length).toBeGreaterThanOrEqual(lean.ada.length);
  });

  it("refuses a value out of range, naming the key", async () => {
    const opening = createKgrag({
      env: {},
      config: { workspace: dir, extraction: { offline: { maxEntitiesPerChunk: 0 } } },
    });
    await expect(opening).rejects.toBeInstanceOf(ConfigError);
    await expect(opening).rejects.toThrow(/extraction\.offline\.maxEntitiesPerChunk/);
  });
});
