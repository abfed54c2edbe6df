import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKgrag, type Kgrag } from "../../src/kgrag.js";
import { NO_ROOM_FOR_PASSAGES } from "../../src/query/query-engine.js";

let dir: string;
let kgrag: Kgrag;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kgrag-budget-"));
  kgrag = await createKgrag({ env: {}, config: { workspace: dir } });
  await kgrag.index([
    {
      id: "lumora",
      title: "Lumora Optics",
      text:
        "Lumora Optics makes Halcyon lenses in Vessen. Ada Marlow founded Lumora Optics in 2009. " +
        "Halcyon lenses from Lumora Optics are used on Gullwing drones built by Tidewell Robotics. " +
        "Tidewell Robotics ships Gullwing drones from Carrow Bay to harbour authorities.",
    },
  ]);
}, 60_000);

afterAll(async () => {
  await kgrag.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a context budget too small for any passage", () => {
  const question = "Which company supplies the lenses used in the Gullwing drone, and who founded it?";

  it("says the budget left no room, instead of answering that nothing matches", async () => {
    const squeezed = await kgrag.query(question, { mode: "local", totalTokens: 256 });
    expect(squeezed.context.chunks).toEqual([]);
    expect(squeezed.answer).toBe(NO_ROOM_FOR_PASSAGES);
    expect(squeezed.warnings).toEqual([expect.stringMatching(/totalTokens 256.*raise totalTokens/)]);
  });

  it("answers from the passages, with no warning, when the budget holds them", async () => {
    const roomy = await kgrag.query(question, { mode: "local" });
    expect(roomy.context.chunks.length).toBeGreaterThan(0);
    expect(roomy.answer).not.toBe(NO_ROOM_FOR_PASSAGES);
    expect(roomy.warnings).toBeUndefined();
  });
});
