import { describe, expect, it } from "vitest";
import { titleFromFileName } from "../../src/ingest/loaders.js";
import { entityKey } from "../../src/merge/keys.js";

describe("titles of files without a heading", () => {
  it("are the words of the file name, so they name the same entity as the text", () => {
    expect(titleFromFileName("/docs/mara-quell.txt")).toBe("mara quell");
    expect(titleFromFileName("/docs/Port_Ellery.notes.txt")).toBe("Port Ellery notes");
    expect(entityKey(titleFromFileName("/x/mara-quell.txt"))).toBe(entityKey("Mara Quell"));
  });

  it("keep the file name when it has no words", () => {
    expect(titleFromFileName("/docs/---.txt")).toBe("---.txt");
  });
});
