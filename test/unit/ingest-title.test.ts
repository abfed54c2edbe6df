import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OfflineNlpExtractor } from "../../src/extraction/offline-extractor.js";
import { titleEntityName } from "../../src/extraction/offline-title.js";
import { loadSources, SUPPORTED_EXTENSIONS, titleFromFileName } from "../../src/ingest/loaders.js";
import { plainTextTitle } from "../../src/ingest/text-formats.js";
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

  it("adds the entity an explicit title names when the text names it too", () => {
    expect(keysOf("Lumora Optics was founded in 1998 in Vessen.", "Lumora Optics")).toContain(
      entityKey("Lumora Optics"),
    );
    // A text that opens with a pronoun is about what its title names; one that neither names nor
    // refers back to its title is only headed by it.
    expect(keysOf("It was founded in 1998 in Vessen.", "Lumora Optics")).toContain(
      entityKey("Lumora Optics"),
    );
    expect(keysOf("Revenue grew in 1998 in Vessen.", "Lumora Optics")).not.toContain(
      entityKey("Lumora Optics"),
    );
  });
});

describe("titles of plain-text files", () => {
  it("are the first line when it reads as a title and a body follows", () => {
    expect(plainTextTitle("Lumen Robotics\n\nLumen Robotics was founded in Lisbon.\n")).toBe(
      "Lumen Robotics",
    );
    expect(plainTextTitle("\uFEFF\n  星河动力公司简介 \r\n星河动力是一家火箭公司。")).toBe(
      "星河动力公司简介",
    );
  });

  it("are not a sentence, a lead-in, a long line, or the only line", () => {
    expect(plainTextTitle("Lumen Robotics was founded in Lisbon.\nIt builds arms.")).toBeNull();
    expect(plainTextTitle("星河动力是一家火箭公司。\n总部在北京。")).toBeNull();
    expect(plainTextTitle("Notes:\n- one\n- two")).toBeNull();
    expect(plainTextTitle(`${"word ".repeat(20)}\nbody`)).toBeNull();
    expect(plainTextTitle("Lumen Robotics\n")).toBeNull();
  });

  it("are used by the .txt loader, and a file without one keeps its file name", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kgrag-title-"));
    try {
      writeFileSync(join(dir, "lumen.txt"), "Lumen Robotics\n\nLumen Robotics builds arms in Lisbon.\n");
      writeFileSync(join(dir, "plain.txt"), "Lumen Robotics builds arms in Lisbon.\n");
      const titles = await Promise.all(
        ["lumen.txt", "plain.txt"].map(async (name) => {
          const { documents } = await loadSources([join(dir, name)]);
          return documents[0]?.title;
        }),
      );
      expect(titles).toEqual(["Lumen Robotics", "plain.txt"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the entity a title names", () => {
  it("drops a lower-case subtitle and a Chinese description word", () => {
    expect(titleEntityName("Vessen: a city guide")).toBe("Vessen");
    expect(titleEntityName("Star Wars: A New Hope")).toBe("Star Wars: A New Hope");
    expect(titleEntityName("澄州城市简介")).toBe("澄州");
    expect(titleEntityName("星河动力公司简介")).toBe("星河动力");
    expect(titleEntityName("简介")).toBe("简介");
  });
});
