import { describe, expect, it } from "vitest";
import { OfflineNlpExtractor } from "../../src/extraction/offline-extractor.js";
import { titleEntityName } from "../../src/extraction/offline-title.js";
import { SUPPORTED_EXTENSIONS, titleFromFileName } from "../../src/ingest/loaders.js";
import { entityKey } from "../../src/merge/keys.js";

describe("titles of files without a heading", () => {
  it("are the file name itself, extension included", () => {
    expect(titleFromFileName("/docs/mara-quell.txt")).toBe("mara-quell.txt");
    expect(titleFromFileName("/docs/Port_Ellery.notes.md")).toBe("Port_Ellery.notes.md");
  });

  it("name no entity, whatever format the file is", () => {
    for (const extension of SUPPORTED_EXTENSIONS) {
      expect(titleEntityName(titleFromFileName(`/docs/priya${extension}`)), extension).toBeNull();
    }
    // The title of a .jsonl line that has none.
    expect(titleEntityName("passages.jsonl line 12")).toBeNull();
  });

  it("leave explicit titles naming their entity", () => {
    expect(titleEntityName("Priya Natarajan")).toBe("Priya Natarajan");
    expect(titleEntityName("Lilu (mythology)")).toBe("Lilu");
    expect(titleEntityName("Line 5")).toBe("Line 5");
  });
});

describe("the offline extractor and file-name titles", () => {
  const extractor = new OfflineNlpExtractor();
  const keysOf = (text: string, title: string) =>
    extractor.extractText(text, title).entities.map((e) => entityKey(e.name));

  it("makes no entity of a file name, nor of its words", () => {
    const keys = keysOf(
      "Priya Natarajan founded Lumora Optics in Vessen.",
      titleFromFileName("/d/priya.txt"),
    );
    expect(keys).toContain(entityKey("Priya Natarajan"));
    expect(keys).not.toContain(entityKey("priya"));
    expect(keys).not.toContain(entityKey("priya.txt"));
    expect(keysOf("火箭在成都发射。", titleFromFileName("/d/zh.txt"))).not.toContain(entityKey("zh"));
  });

  it("still adds the entity an explicit title names, even when the text never writes it", () => {
    const keys = keysOf("It was founded in 1998 in Vessen.", "Lumora Optics");
    expect(keys).toContain(entityKey("Lumora Optics"));
  });
});
