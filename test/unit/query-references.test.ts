import { describe, expect, it } from "vitest";
import { documentTitles } from "../../src/query/context/references.js";
import type { DocumentRecord } from "../../src/types.js";

function doc(id: string, title: string, path: string | null): DocumentRecord {
  return {
    id,
    title,
    path,
    contentHash: id,
    status: "processed",
    error: null,
    metadata: {},
    chunkCount: 1,
    createdAt: "2024-01-01T00:00:00.000Z",
    updatedAt: "2024-01-01T00:00:00.000Z",
  };
}

const docs = new Map(
  [
    doc("titled", "Lisbon notes", "/srv/kgrag/uploads/lisbon.md"),
    doc("posix", "", "/home/ops/kgrag-data/ws/uploads/porto notes.txt"),
    doc("windows", "", "C:\\Users\\ops\\corpus\\faro.md"),
    doc("no-path", "", null),
  ].map((d) => [d.id, d]),
);
const store = { getDocument: async (id: string) => docs.get(id) };

describe("references: document titles", () => {
  it("names an untitled document by its file's name, never the folders it sits in", async () => {
    const titles = await documentTitles(store, ["titled", "posix", "windows", "no-path", "missing"]);
    expect(Object.fromEntries(titles)).toEqual({
      titled: "Lisbon notes",
      posix: "porto notes.txt",
      windows: "faro.md",
      "no-path": "no-path",
    });
  });
});
