import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileDocumentId, loadSources } from "../../src/ingest/loaders.js";
import { minimalDocx, minimalPdf, minimalPdfPages } from "../support/document-fixtures.js";

let dir: string;
const file = (name: string, content: string | Buffer) => {
  const path = join(dir, name);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, content);
  return path;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kgrag-loaders-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function loadOne(path: string) {
  const { documents, skipped } = await loadSources([path]);
  return { document: documents[0], skipped };
}

describe("loadSources: whole-file formats", () => {
  it("loads .txt with the file name as title and path-derived id and metadata", async () => {
    // Its first line is a sentence, not a title.
    const path = file("plain/notes.txt", "Line one ends here.\r\nLine two\n");
    const { document } = await loadOne(path);
    expect(document).toEqual({
      id: fileDocumentId(path),
      title: "notes.txt",
      path,
      text: "Line one ends here.\nLine two\n",
      metadata: { source: path, format: "text" },
    });
  });

  it("keeps the document id when the file's content changes, and resolves relative paths", async () => {
    const path = file("plain/changing.txt", "first version");
    const before = await loadOne(path);
    writeFileSync(path, "second version");
    const after = await loadOne(relative(process.cwd(), path));
    expect(after.document?.id).toBe(before.document?.id);
    expect(after.document?.text).toBe("second version");
    expect(after.document?.path).toBe(path);
  });

  it("titles markdown by its first heading outside code fences", async () => {
    const md = "```\n# not a title\n```\nIntro line\n\n## Lumora Optics ##\n\nBody.";
    const { document } = await loadOne(file("md/lumora.md", md));
    expect(document?.title).toBe("Lumora Optics");
    expect(document?.text).toBe(md);
    expect(document?.metadata.format).toBe("markdown");
    const untitled = await loadOne(file("md/untitled.markdown", "Just text."));
    expect(untitled.document?.title).toBe("untitled.markdown");
  });

  it("turns HTML into text without markup, scripts or link targets", async () => {
    const html =
      "<html><head><title>Vessen &amp; Port Ellery</title><script>var x = 1;</script></head>" +
      '<body><h1>City guide</h1><p>Vessen lies on the <a href="http://example.org">River Tarne</a>.</p></body></html>';
    const { document } = await loadOne(file("web/vessen.html", html));
    expect(document?.title).toBe("Vessen & Port Ellery");
    expect(document?.text).toContain("Vessen lies on the River Tarne.");
    expect(document?.text).not.toMatch(/<|var x|example\.org/);
  });

  it("keeps HTML headings and table header cells as written, and a table's cells apart", async () => {
    const html =
      "<h1>Harbor notes</h1><p>The Carrow Bay harbor master approved the pier.</p><h3>Pier facts</h3>" +
      "<table><tr><th>Name</th><th>Founded</th></tr><tr><td>Lumora Optics</td><td>2009</td></tr></table>";
    const { document } = await loadOne(file("web/notes.html", html));
    const lines = document?.text.split("\n").filter((line) => line.trim() !== "");
    expect(lines?.map((line) => line.replace(/\s+/g, " "))).toEqual([
      "Harbor notes",
      "The Carrow Bay harbor master approved the pier.",
      "Pier facts",
      "Name Founded",
      "Lumora Optics 2009",
    ]);
    expect(document?.title).toBe("Harbor notes");
  });

  it("reads .docx through mammoth", async () => {
    const path = file(
      "office/memo.docx",
      minimalDocx(["Lumora Optics makes lenses.", "Tidewell & friends."]),
    );
    const { document, skipped } = await loadOne(path);
    expect(skipped).toEqual([]);
    expect(document?.text).toBe("Lumora Optics makes lenses.\n\nTidewell & friends.");
    expect(document?.metadata).toEqual({ source: path, format: "docx" });
  });

  it("reads .pdf through unpdf's pdf.js", async () => {
    const path = file(
      "office/brief.pdf",
      minimalPdf(["Tidewell Robotics (Carrow Bay)", "builds survey drones."]),
    );
    const { document, skipped } = await loadOne(path);
    expect(skipped).toEqual([]);
    expect(document?.text).toBe("Tidewell Robotics (Carrow Bay)\nbuilds survey drones.");
    expect(document?.metadata).toMatchObject({ format: "pdf", pageStarts: "0", pages: 1 });
    // A first line in the body's type is a wrapped sentence as likely as a heading: no title.
    expect(document?.title).toBe("brief.pdf");
  });

  it("titles a .pdf by the heading in larger type that opens its first page with text", async () => {
    const heading = { text: "Orrin Falls Observatory", size: 20 };
    const body = ["The Orrin Falls Observatory was founded", "in 1987 by Petra Lindqvist."];
    const { document } = await loadOne(file("office/orrin.pdf", minimalPdfPages([[], [heading, ...body]])));
    expect(document?.title).toBe("Orrin Falls Observatory");
    expect(document?.text).toBe(`Orrin Falls Observatory\n${body.join("\n")}`);
    // A heading over two lines is one title; larger type that reads as a sentence is none.
    const twoLines = [{ text: "Orrin Falls", size: 20 }, { text: "Observatory", size: 20 }, ...body];
    expect((await loadOne(file("office/two.pdf", minimalPdf(twoLines)))).document?.title).toBe(
      "Orrin Falls Observatory",
    );
    const sentence = [{ text: "The observatory opened in 1987.", size: 20 }, ...body];
    expect((await loadOne(file("office/lead.pdf", minimalPdf(sentence)))).document?.title).toBe("lead.pdf");
  });

  it("titles a .docx by its first paragraph when it reads as a title", async () => {
    const path = file(
      "office/orrin.docx",
      minimalDocx(["Orrin Falls Observatory", "It was founded in 1987."]),
    );
    expect((await loadOne(path)).document?.title).toBe("Orrin Falls Observatory");
  });

  it("keeps where each page of a .pdf starts, an empty page starting where the next text does", async () => {
    const path = file(
      "office/paged.pdf",
      minimalPdfPages([["Page one text."], ["Page two text."], [], ["Page four text."]]),
    );
    const { document } = await loadOne(path);
    const text = "Page one text.\n\nPage two text.\n\nPage four text.";
    expect(document?.text).toBe(text);
    const starts = String(document?.metadata.pageStarts).split(",").map(Number);
    expect(starts).toEqual([
      0,
      text.indexOf("Page two"),
      text.indexOf("Page four"),
      text.indexOf("Page four"),
    ]);
    expect(document?.metadata.pages).toBe(4);
  });

  it("skips corrupt .pdf and .docx files with a plain reason and the parser's gist, naming their document", async () => {
    const pdf = file("broken/bad.pdf", "%PDF-1.4 this is not really a pdf");
    const docx = file("broken/bad.docx", "not a zip archive");
    const { documents, skipped } = await loadSources([pdf, docx]);
    expect(documents).toEqual([]);
    expect(skipped).toEqual([
      {
        path: pdf,
        reason: expect.stringMatching(/^not a readable \.pdf file \(corrupt or not a PDF\): \S/),
        docId: fileDocumentId(pdf),
      },
      {
        // jszip's own words end in "is this a zip file ? If it is, see https://stuk.github.io/…".
        path: docx,
        reason:
          "not a readable .docx file (corrupt or not a Word document): Can't find end of central directory",
        docId: fileDocumentId(docx),
      },
    ]);
  });

  it("skips binary content and invalid UTF-8, saying what to do", async () => {
    const binary = file("bad/image.txt", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x1a]));
    const gbk = file("bad/gbk.md", Buffer.from([0xc4, 0xe3, 0xba, 0xc3, 0x20, 0xca, 0xc0, 0xbd, 0xe7]));
    const { documents, skipped } = await loadSources([binary, gbk]);
    expect(documents).toEqual([]);
    expect(skipped[0]).toEqual({
      path: binary,
      reason: expect.stringContaining("binary content"),
      docId: fileDocumentId(binary),
    });
    expect(skipped[1]).toEqual({
      path: gbk,
      reason: expect.stringMatching(/not valid UTF-8.*convert/),
      docId: fileDocumentId(gbk),
    });
  });

  it("accepts UTF-16 text that starts with a byte-order mark", async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("澄州 harbour", "utf16le")]);
    const { document } = await loadOne(file("bad/utf16.txt", utf16));
    expect(document?.text).toBe("澄州 harbour");
  });

  it("skips empty and whitespace-only files as empty, naming the document they would be", async () => {
    const empty = file("empty/empty.md", "");
    const blank = file("empty/blank.txt", " \n\t\n");
    const { documents, skipped } = await loadSources([empty, blank]);
    expect(documents).toEqual([]);
    expect(skipped).toEqual([
      { path: empty, reason: "empty document: no text to index", docId: fileDocumentId(empty) },
      { path: blank, reason: "empty document: no text to index", docId: fileDocumentId(blank) },
    ]);
  });
});

describe("loadSources: folders", () => {
  it("walks folders recursively in sorted order, skipping dotfiles, node_modules and unknown types", async () => {
    const root = join(dir, "tree");
    file("tree/b.txt", "b");
    file("tree/a/z.md", "# Z\nz");
    file("tree/a/y.txt", "y");
    file("tree/.hidden/secret.txt", "no");
    file("tree/.env.txt", "no");
    file("tree/node_modules/pkg/readme.md", "no");
    const image = file("tree/c.png", Buffer.from([1, 2, 3]));
    const { documents, skipped } = await loadSources([root, join(root, "b.txt"), join(dir, "missing")]);
    expect(documents.map((d) => relative(root, d.path!))).toEqual(["a/y.txt", "a/z.md", "b.txt"]);
    expect(skipped).toEqual([
      { path: join(dir, "missing"), reason: "no such file or folder" },
      { path: image, reason: expect.stringMatching(/^unsupported file type \.png \(supported: .*\.jsonl\)/) },
    ]);
  });

  it("says how to index text when what was given as a path reads as text (LightRAG's insert(text))", async () => {
    const text = "Lumen Robotics was founded by Ada Park in Oslo.";
    const { documents, skipped } = await loadSources([text, join(dir, "gone.txt")]);
    expect(documents).toEqual([]);
    expect(skipped).toEqual([
      {
        path: resolve(text),
        reason:
          "no such file or folder (to index text itself rather than a file, pass documents { id, title, text })",
      },
      { path: join(dir, "gone.txt"), reason: "no such file or folder" },
    ]);
  });

  it("reads a linked file but does not follow a link to a folder (a link to the parent would walk it all)", async () => {
    const root = join(dir, "linked");
    file("linked/inside/own.txt", "own");
    const outside = file("outside/other.txt", "other");
    symlinkSync("..", join(root, "inside", "up"));
    symlinkSync(outside, join(root, "inside", "other-link.txt"));
    const { documents, skipped } = await loadSources([join(root, "inside")]);
    expect(documents.map((d) => relative(root, d.path!))).toEqual([
      "inside/other-link.txt",
      "inside/own.txt",
    ]);
    expect(skipped).toEqual([
      {
        path: join(root, "inside", "up"),
        reason: expect.stringMatching(/^a link to a folder, not followed/),
      },
    ]);
    // Named itself, a linked folder is walked.
    const named = await loadSources([join(root, "inside", "up")]);
    expect(named.documents.map((d) => d.text)).toContain("own");
  });
});

describe("loadSources: .jsonl", () => {
  const lines = [
    JSON.stringify({
      id: "p1",
      title: "Gullwing drone",
      text: "A fixed-wing survey aircraft.",
      metadata: { year: 2021 },
    }),
    "{ not json",
    JSON.stringify({ id: "p2", title: "No text" }),
    "",
    JSON.stringify({ text: "A passage without id or title." }),
    JSON.stringify({ id: "p1", text: "Same id again." }),
    JSON.stringify({ id: 7, text: "Numeric id.", metadata: { nested: { no: 1 } } }),
    JSON.stringify({ id: "p3", title: "Only a title", text: "   " }),
  ];

  it("loads one document per good line and reports each bad line with file:line", async () => {
    const path = file("jsonl/passages.jsonl", `${lines.join("\n")}\n`);
    const { documents, skipped } = await loadSources([path]);
    expect(documents.map((d) => d.id)).toEqual(["p1", expect.stringMatching(/^doc-/)]);
    expect(documents[0]).toEqual({
      id: "p1",
      title: "Gullwing drone",
      path,
      text: "Gullwing drone\n\nA fixed-wing survey aircraft.",
      metadata: { source: path, format: "jsonl", line: 1, year: 2021 },
    });
    expect(documents[1]).toMatchObject({
      title: "passages.jsonl line 5",
      text: "A passage without id or title.",
    });
    expect(skipped).toEqual([
      // Lines that cannot be read are marked: each may be a stored document.
      { path: `${path}:2`, reason: "not valid JSON", unreadable: true, line: 2 },
      {
        path: `${path}:3`,
        reason: 'expected {"id"?, "title"?, "text", "metadata"?}: missing "text"',
        unreadable: true,
        line: 3,
      },
      { path: `${path}:6`, reason: `duplicate document id p1 (first at ${path}:1)` },
      {
        path: `${path}:7`,
        reason: expect.stringContaining('"metadata" values must be strings, numbers or booleans'),
        unreadable: true,
        line: 7,
      },
      // A title alone is not content.
      { path: `${path}:8`, reason: "empty document: no text to index", docId: "p3" },
    ]);
  });

  it("derives the id of a line without one from its content, not its position", async () => {
    const first = file("jsonl/a.jsonl", `${JSON.stringify({ text: "Saltmere has salt pans." })}\n`);
    const shifted = `${JSON.stringify({ text: "A new first line." })}\n${JSON.stringify({ text: "Saltmere has salt pans." })}\n`;
    const before = (await loadSources([first])).documents[0]!.id;
    writeFileSync(first, shifted);
    const after = (await loadSources([first])).documents.map((d) => d.id);
    expect(after[1]).toBe(before);
    expect(after[0]).not.toBe(before);
  });

  it("skips a line of invalid UTF-8 by its number and loads the others, CRLF endings and BOM included", async () => {
    const line = (id: string, text: string) => Buffer.from(`${JSON.stringify({ id, text })}\r\n`);
    const bad = Buffer.from([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]);
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const path = file(
      "jsonl/broken.jsonl",
      Buffer.concat([bom, line("ok", "fine"), bad, line("zh", "澄州港")]),
    );
    const { documents, skipped } = await loadSources([path]);
    expect(documents.map((d) => [d.id, d.text])).toEqual([
      ["ok", "fine"],
      ["zh", "澄州港"],
    ]);
    expect(skipped).toEqual([
      { path: `${path}:2`, reason: expect.stringContaining("not valid UTF-8"), unreadable: true, line: 2 },
    ]);
  });
});
